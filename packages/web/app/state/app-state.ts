/**
 * What the page's one store (store.ts) holds and what it does: the state components read and the
 * actions they call. Kept apart from the store's workings so each file stays one topic.
 */
import type { StoreApi } from 'zustand/vanilla'
import type { SessionListItem } from '@bosun/host/client'
import type { ConnectionState } from './connection.js'
import type { Notice } from './notices.js'
import type { SentBefore } from './sent-before.js'
import type { SessionView } from './view.js'

/**
 * What the Message box of `session` is asked to take: `text` (added to what it holds; null: none)
 * and the focus — `if-lost`: if the focus fell off the page, its control gone with what it acted on
 * (Fork's turn, a queued message's editor whose message started running); `take`: wherever it is
 * (New session: its button stays, but what the user does next is type).
 */
export interface ComposerCall { id: number; session: string; text: string | null; focus: 'if-lost' | 'take' }

export interface AppState {
  sessions: SessionListItem[]
  /**
   * Whether the host let the page in: `required` once it answered 401 (the host has a token and
   * the page no login cookie): the page shows the login form until `login` succeeds.
   */
  auth: 'unknown' | 'ok' | 'required'
  /**
   * Whether the page is in on a login cookie (the host has a token): it can log out. `null` until
   * known — the host has not yet said (`GET /v1/host`) whether it takes a token.
   */
  loggedIn: boolean | null
  selected: string | null
  /**
   * Why the selected session cannot be shown, once the host said it has no such session (its
   * stream answered 404: a mistyped or stale address, a deleted session), or once it was removed
   * (a `session.removed` frame, or this page's Remove): the page says so in
   * place of the conversation, and offers no controls that could only fail. Null otherwise.
   */
  unavailable: string | null
  view: SessionView
  /** The open session's stream (the banner over the conversation). */
  connection: ConnectionState
  /**
   * The host stream that keeps the session list live (`GET /v1/stream`; the notice in the list).
   * `stopped` carries `why`: what ended it and what to do.
   */
  listConnection: ConnectionState
  notices: Notice[]
  /** Turn number the inspector opens at, or null when closed. */
  inspecting: number | null
  /** For the Message box to take (see {@link ComposerCall}); null once taken. */
  composerCall: ComposerCall | null
}

export interface AppActions {
  /** Reads the list once (after creating or forking, so the new session is there at once). */
  refreshSessions(): Promise<void>
  /** Follows the host stream: the list, live (what the page does from the start). */
  followSessions(): void
  /**
   * Logs in with the token (the host's cookie; the token is not kept), then loads the page.
   * Answers the host's refusal for the form to show (a wrong token, too many attempts), or null.
   */
  login(token: string): Promise<string | null>
  /** Ends the login cookie (`POST /v1/logout`): the page shows the login form again. */
  logout(): Promise<void>
  select(id: string | null): void
  createSession(): Promise<void>
  /**
   * Sends a message; answers whether the host took it (if not, a notice said why, and the page gives the text back to edit or send again).
   * `clientMessageId` (else a new one) is the host's idempotency key: a send again with the id of one whose answer was lost is
   * answered `duplicate` — the host had taken it — and never makes a second message (a notice says so). An id the host
   * admitted with other content or delivery (422 `client-message-id-reused`) is taken for good: that counts as taken too
   * (the message sent first under it is in the conversation or the queue), and a notice says this one was not sent.
   * `sentBefore`: an unsent try of the same words sent the other way — if the host admitted it and it is queued or
   * taken by a turn, nothing is sent (that counts as taken) and a notice says where it is (sent-before.ts).
   */
  send(text: string, delivery: 'followup' | 'steer', clientMessageId?: string, sentBefore?: SentBefore): Promise<boolean>
  /** Edits a queued message; answers whether the host took the edit (if not, a notice said why). */
  edit(messageId: string, text: string): Promise<boolean>
  remove(messageId: string): Promise<void>
  promote(messageId: string): Promise<void>
  reorder(order: string[]): Promise<void>
  stop(keepInbox: boolean): Promise<void>
  /** Cancels a subagent child's running turn (the host's cancel on the child session). */
  interruptChild(childId: string): Promise<void>
  resume(): Promise<void>
  fork(afterTurn: number): Promise<void>
  /**
   * Removes session `id` and its subagent children from the host's store (`DELETE /v1/sessions/:id`);
   * answers whether the host did (if not — a child whose parent is stored, a session another host
   * holds — a notice said why). Removed sessions leave the list; the open one, if among them, says so.
   */
  removeSession(id: string): Promise<boolean>
  dismiss(id: number): void
  /** Keeps the information notices on the page while `held` (the pointer or the focus on one); released, each gets its time again. */
  holdNotices(held: boolean): void
  inspect(turn: number | null): void
  /**
   * A queued message's editor is open with `text` (null: closed, or its save was answered). If the
   * message leaves the queue meanwhile (it starts running, is promoted or removed), the text goes
   * to the Message box and a notice says why (queue-edits.ts).
   */
  noteEdit(messageId: string, text: string | null): void
  /** The Message box took the call `id`. */
  takeComposerCall(id: number): void
  /** Stops following the selected session (page unload, tests). */
  dispose(): void
}

export type AppStore = StoreApi<AppState & AppActions>
