/**
 * The types of `@bosun/host/client` (re-exported there): the routes' answers, the stream frames
 * and the client's interface. Types only: the client stays free of the host's runtime code.
 */
import type { AdmissionReceipt } from './admission.js'
import type { MessageStatus } from './log.js'

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4477` */
  baseUrl: string
  /** Bearer token, when the host requires one. */
  token?: string
  fetch?: typeof fetch
}

export interface WireEvent { seq: number; time: number; type: string; data: unknown }
export interface WireMessage { id: string; role: 'user'; content: unknown[]; source: { kind: string; [key: string]: unknown } }
export interface Queues { 'next-turn': WireMessage[]; 'next-step': WireMessage[] }
export type Delivery = 'followup' | 'steer' | 'inject'

/** The admission receipt of `POST /v1/sessions/:id/messages` (the host's own type: one definition). */
export type Receipt = AdmissionReceipt
export type { MessageStatus }
/** `GET …/messages/:messageId` on a cluster host while the message waits in that host's mailbox for the session's owner (docs/host.md). */
export interface PendingMessageStatus { messageId: string; state: 'pending' }

/** A session in `GET /v1/sessions`, `GET /v1/stream` and children (the host's `SessionSummary`). */
export interface SessionListItem {
  id: string
  createdAt?: number
  loaded: boolean
  status: string
  lastSeq: number
  /** Last activity: the `time` of the log's last event (epoch ms), null while the log is empty. */
  lastEventAt: number | null
  queue: { 'next-turn': number; 'next-step': number } | null
  /**
   * A preview of the first prompt (the first message a user sent, else the first queued; at most
   * 200 code points, a longer one cut with `…`), null while there is none. Absent from hosts older than it.
   */
  firstPrompt?: string | null
  /** A subagent's child: the session that spawned it. */
  parentSessionId?: string
  /** A fork: the session it was forked from. */
  parent?: string
}
export interface ChildSessionItem extends SessionListItem { parentSessionId: string; delegation: { parentSessionId: string; callId: string; depth: number; mode: 'one-shot' | 'continuable' } }
export interface SessionSnapshot { id: string; loaded: boolean; status: string; turn?: number; lastSeq: number; inboxVersion: number; inbox: Queues }
/** Queue operations: `inboxVersion` (from a snapshot, or the seq of the last splice seen) makes a changed queue answer 412 version-mismatch. */
export interface QueueOptions { inboxVersion?: number }

export type StreamFrame =
  /**
   * `prefix`: the fingerprint of the log up to the stream's cursor (seqs 0 … `prefix.seq`), which
   * the client compares on a reconnect with the one it kept of what it received. Absent from
   * hosts older than it.
   */
  | { event: 'hello'; data: { lastSeq: number; status: string; inboxVersion?: number; inbox: Queues; prefix?: { seq: number; hash: string } } }
  | { event: 'session.event'; data: WireEvent }
  | { event: 'session.inbox'; data: Queues }
  | { event: 'session.status'; data: { status: string; seq: number } }
  /** The session was removed: the last frame, the stream ends after it (a reconnect would be answered 404). */
  | { event: 'session.removed'; data: { id: string } }
  /**
   * Made by the client, not sent by the host: on a reconnect the host's log is not the one this
   * stream delivered up to its cursor (a host killed before it saved events it had already
   * streamed reuses their seqs; a memory host restarted with another history). Drop what was
   * built from the earlier frames: the stream starts over from seq 0 with the log as it is now.
   * `seq`: the last seq delivered before it.
   */
  | { event: 'reset'; data: { reason: 'diverged'; seq: number } }

/** The frames of the host stream (`GET /v1/stream`), for session lists. */
export type HostStreamFrame =
  /** Every session now: replace the list held (also after each reconnect). */
  | { event: 'hello'; data: { sessions: SessionListItem[] } }
  | { event: 'session.added'; data: { id: string } }
  /** A session's summary after its status or queues changed (the latest state wins). */
  | { event: 'session.status'; data: SessionListItem }
  /** A session was removed (on this host, or another of its cluster): drop it from the list. */
  | { event: 'session.removed'; data: { id: string } }

/**
 * Why a stream is about to be tried again: the host refused the last attempt (a 5xx, 408 or 429:
 * its status, its error code when its body has one, and the wait its `retry-after` asked for, in
 * ms, capped at a minute), the host could not be reached (the fetch threw), or an open stream
 * ended or broke.
 */
export type RetryCause =
  | { kind: 'refused'; status: number; code?: string; retryAfterMs?: number }
  | { kind: 'unreachable'; error: unknown }
  | { kind: 'dropped' }

/** A stream's next attempt, announced by `onRetry` before the client waits for it. */
export interface RetryNotice {
  /** The retry's number since the stream last delivered a frame: 1 for the first after a drop or refusal. */
  attempt: number
  /** The wait before it, in ms: the backoff's jittered delay, or the `retry-after` asked plus its jitter. */
  delayMs: number
  /** When it comes (epoch ms, `Date.now()` at the announcement plus `delayMs`). */
  at: number
  cause: RetryCause
}

export interface HostStreamOptions {
  signal?: AbortSignal
  /**
   * Reconnect backoff. Default 200 ms doubling up to 5 s, each wait jittered (between half the
   * delay and all of it). A refused attempt's `retry-after` (503 too-many-streams says 5 s) is
   * waited in full, up to a minute. A 4xx other than 408/429 is not retried: it is thrown. Both
   * delays must be positive (ms, at most 2^31 - 1), else the stream throws `invalid-argument` at once.
   */
  retry?: { initialMs?: number; maxMs?: number }
  /**
   * Called before each wait for a next attempt, with when it comes and why (a page's "next attempt
   * in 4 s"): the wait announced is the wait done. Not called once `signal` has aborted; an error
   * it throws ends the stream.
   */
  onRetry?: (notice: RetryNotice) => void
}

export interface StreamOptions {
  /** Last seq already seen (-1 = from the start). Default -1. */
  after?: number
  /** Live only: start after the current end of the log. */
  fromTail?: boolean
  /** `false`: finished steps without their chunks. */
  chunks?: boolean
  signal?: AbortSignal
  /**
   * Reconnect backoff. Default 200 ms doubling up to 5 s, each wait jittered (between half the
   * delay and all of it). A refused attempt's `retry-after` (503 too-many-streams says 5 s) is
   * waited in full, up to a minute. A 4xx other than 408/429 is not retried: it is thrown. Both
   * delays must be positive (ms, at most 2^31 - 1), else the stream throws `invalid-argument` at once.
   */
  retry?: { initialMs?: number; maxMs?: number }
  /**
   * Called before each wait for a next attempt, with when it comes and why (a page's "next attempt
   * in 4 s"): the wait announced is the wait done. Not called once `signal` has aborted; an error
   * it throws ends the stream.
   */
  onRetry?: (notice: RetryNotice) => void
}

export interface HostClient {
  host(): Promise<{ protocol: string; version: string; capabilities: string[]; auth: string }>
  listSessions(): Promise<SessionListItem[]>
  createSession(id?: string): Promise<{ id: string; status: string; lastSeq: number }>
  getSession(id: string): Promise<SessionSnapshot>
  /** A subagent parent's child sessions (by their headers' delegation), none resumed. */
  children(id: string): Promise<ChildSessionItem[]>
  events(id: string, page?: { after?: number; limit?: number }): Promise<{ events: WireEvent[]; lastSeq: number; next: number | null }>
  /** Admits a message. `clientMessageId` defaults to a fresh UUID: pass your own to retry safely. */
  send(id: string, message: { content: string | unknown[]; clientMessageId?: string; delivery?: Delivery }, options?: { waitDurable?: boolean }): Promise<Receipt>
  /** Where a message went; on a cluster host, `{ state: 'pending' }` while it waits in that host's mailbox for the session's owner. */
  messageStatus(id: string, messageId: string): Promise<MessageStatus | PendingMessageStatus>
  editMessage(id: string, messageId: string, content: string | unknown[], options?: QueueOptions): Promise<{ edited: string; inbox: Queues }>
  removeMessage(id: string, messageId: string, options?: QueueOptions): Promise<{ removed: string; inbox: Queues }>
  /** Queued follow-up → steering the running turn (409 steer-unavailable when none runs: it stays queued). */
  promote(id: string, messageId: string, options?: QueueOptions): Promise<{ promoted: string; lane: 'next-step'; position: number | null; inbox: Queues }>
  reorder(id: string, order: string[], options?: QueueOptions): Promise<{ inbox: Queues }>
  cancel(id: string, options?: { keepInbox?: boolean }): Promise<{ canceled: true; keepInbox: boolean; inbox: Queues }>
  wake(id: string): Promise<{ status: string; inbox: Queues }>
  fork(id: string, options?: { id?: string; afterTurn?: number }): Promise<{ id: string; parent: string; seedLength: number }>
  /**
   * Removes the session with its subagent children, stopping them first: the removed ids, the
   * session first. 404 session-not-found, 409 child-session (remove its parent), 409 session-locked
   * (open in another process or host), 501 not-supported (the host's store cannot remove).
   */
  removeSession(id: string): Promise<{ removed: string[] }>
  /** The session's frames, resumed by the last seq after a dropped connection; ends when `signal` aborts, or after a `session.removed` frame. */
  stream(id: string, options?: StreamOptions): AsyncIterable<StreamFrame>
  /** The host's session-list frames; reconnects after a drop and starts again with a `hello`; ends when `signal` aborts. */
  hostStream(options?: HostStreamOptions): AsyncIterable<HostStreamFrame>
  /** Browsers: exchanges the token for the host's HttpOnly login cookie (the token is not kept). 401 not-authorized on a wrong token, 429 too-many-requests. */
  login(token: string): Promise<{ loggedIn: true; expiresAt?: number }>
  logout(): Promise<{ loggedIn: false }>
}
