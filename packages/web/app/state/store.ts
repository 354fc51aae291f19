/**
 * The page's one store (zustand): the session list, the selected session's folded view, the
 * connection and short-lived notices. Every write to the host goes through the actions here,
 * which call the one client; components only read the store and call actions.
 */
import { createStore } from 'zustand/vanilla'
import { HostClientError, type HostClient, type RetryNotice, type StreamFrame } from '@bosun/host/client'
import type { AppActions, AppState, AppStore, ComposerCall } from './app-state.js'
import { createCoalescer, type Scheduler } from './coalesce.js'
import { reconnecting, sessionRemoved, sessionUnavailable, stoppedBecause } from './connection.js'
import { cookieNotKept } from './login-cookie.js'
import { emptySession, foldFrames } from './fold.js'
import { idTaken, idTakenNotice } from './id-taken.js'
import { editsLeft } from './queue-edits.js'
import { admittedBefore, sentBeforeNotice } from './sent-before.js'
import { INFO_NOTICE_MS, noticeBoard, topicOf, type Notice } from './notices.js'
import { applyHostFrame, withoutSessions } from './session-list.js'

export type { Notice }
export type { AppActions, AppState, AppStore, ComposerCall }

/** How the page's streams retry (the client's backoff; the client announces each wait, which the banner counts down). */
const STREAM_RETRY = { initialMs: 250, maxMs: 2000 } as const

export interface AppStoreOptions {
  client: HostClient
  scheduler?: Scheduler
  /** Called with the selected id so the URL can follow (`#/s/<id>`). */
  onSelect?: (id: string | null) => void
  /** How long an information notice stays (notices.ts); tests shorten it. */
  infoNoticeMs?: number
}

export function createAppStore({ client, scheduler, onSelect, infoNoticeMs = INFO_NOTICE_MS }: AppStoreOptions): AppStore {
  let follow: AbortController | null = null
  let followList: AbortController | null = null
  let callId = 0
  /** The selected session's open queue edits: message id → the editor's text. */
  const edits = new Map<string, string>()
  const store = createStore<AppState & AppActions>()((set, get) => {
    const board = noticeBoard(infoNoticeMs, { read: () => get().notices, write: (notices) => set({ notices }) })
    /** Shows a notice about `action` in `session` (null: the page's own, as Creating a session), replacing the one before on it (notices.ts). */
    const notify = (kind: Notice['kind'], action: string, session: string | null, text: string): void => board.notify(kind, session === null ? action : topicOf(action, session), text)
    /** Runs a host call about `session`; a refusal becomes a notice that says what happened. */
    const attempt = async <T>(what: string, session: string | null, call: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await call()
      } catch (error) {
        // A refusal is the host's to explain; no answer at all (a fetch that throws) means it is not there.
        notify('error', what, session, `${what} failed: ${error instanceof HostClientError ? error.message : `the host could not be reached (${String(error)}). Try again once it is back.`}`)
        return undefined
      }
    }
    /** A 401: the host wants a token the page has not logged in with. Nothing else to say. */
    const refused = (error: unknown): boolean => {
      if (!(error instanceof HostClientError && error.status === 401)) return false
      set({ auth: 'required' })
      return true
    }
    /** Asks the Message box of `session` for the focus (if it fell off the page) and to take `text`; a call not yet taken keeps its text. */
    const callComposer = (session: string, text: string | null, focus: ComposerCall['focus'] = 'if-lost'): void => {
      callId += 1
      const waiting = get().composerCall
      const texts = [...(waiting?.session === session && waiting.text !== null ? [waiting.text] : []), ...(text === null ? [] : [text])]
      set({ composerCall: { id: callId, session, text: texts.length === 0 ? null : texts.join('\n\n'), focus: waiting?.session === session && waiting.focus === 'take' ? 'take' : focus } })
    }
    /**
     * Sessions removed from the store (this page's Remove, or a `session.removed` frame): gone from
     * the list, and an open one says so in its place — its stream stops for good, since
     * reconnecting could only be refused (404).
     */
    const dropRemoved = (ids: readonly string[]): void => {
      set((state) => ({ sessions: withoutSessions(state.sessions, ids) }))
      const open = get().selected
      if (open === null || !ids.includes(open)) return
      follow?.abort()
      follow = null
      edits.clear()
      set({ unavailable: sessionRemoved(open), connection: { state: 'stopped', retries: 0 }, inspecting: null })
    }
    const current = (): string => {
      const id = get().selected
      if (id === null) throw new Error('no session selected')
      return id
    }

    return {
      sessions: [],
      auth: 'unknown',
      loggedIn: null,
      selected: null,
      unavailable: null,
      view: emptySession(),
      connection: { state: 'connecting', retries: 0 },
      listConnection: { state: 'connecting', retries: 0 },
      notices: [],
      inspecting: null,
      composerCall: null,

      async refreshSessions() {
        // A failure (the host restarting) is the host stream's to recover from, not a notice.
        const sessions = await client.listSessions().catch((error: unknown) => {
          refused(error)
          return undefined
        })
        if (sessions !== undefined) set({ sessions, auth: 'ok' })
      },

      followSessions() {
        followList?.abort()
        const controller = new AbortController()
        followList = controller
        set({ listConnection: { state: 'connecting', retries: 0 } })
        void (async () => {
          try {
            // A reconnect starts with a new hello: the whole list again, so nothing is missed.
            // The client announces each next attempt; a frame means the stream is live again.
            const onRetry = (notice: RetryNotice): void => {
              if (!controller.signal.aborted) set({ listConnection: reconnecting(notice) })
            }
            for await (const frame of client.hostStream({ signal: controller.signal, retry: STREAM_RETRY, onRetry })) {
              if (controller.signal.aborted) return
              if (get().listConnection.state !== 'live') set({ listConnection: { state: 'live', retries: 0 } })
              if (frame.event === 'session.removed') dropRemoved([frame.data.id])
              else set((state) => ({ sessions: applyHostFrame(state.sessions, frame), ...(frame.event === 'hello' ? { auth: 'ok' as const } : {}) }))
              // In on a host with a token means in on a login cookie (a reload keeps it): offer Log out.
              if (frame.event === 'hello' && !get().loggedIn) void client.host().then((info) => set({ loggedIn: info.auth === 'bearer' }), () => undefined)
            }
          } catch (error) {
            if (controller.signal.aborted) return
            // Refused for good (401, 403): no retry comes; the list says so, and what to do (401: the login form).
            refused(error)
            set({ listConnection: { state: 'stopped', retries: 0, why: stoppedBecause('The host stream', error, 'follow the host again') } })
          }
        })()
      },

      async login(token) {
        try {
          await client.login(token)
        } catch (error) {
          if (error instanceof HostClientError) return error.code === 'not-authorized' ? 'Wrong token: use the one the host was started with (BOSUN_HOST_TOKEN or --token-file).' : error.message
          return `The host could not be reached: ${error instanceof Error ? error.message : String(error)}`
        }
        // The login only counts if the browser kept its cookie: a request on it must not be refused (login-cookie.ts).
        const kept = await client.listSessions().then(() => true, (error: unknown) => !(error instanceof HostClientError && error.status === 401))
        if (!kept) return cookieNotKept((globalThis as { location?: { protocol: string } }).location?.protocol)
        set({ auth: 'ok', loggedIn: true })
        get().followSessions()
        const selected = get().selected
        if (selected !== null) get().select(selected)
        return null
      },

      select(id) {
        follow?.abort()
        follow = null
        edits.clear()
        set({ selected: id, unavailable: null, view: emptySession(), connection: { state: 'connecting', retries: 0 }, inspecting: null })
        onSelect?.(id)
        if (id === null) return
        const controller = new AbortController()
        follow = controller
        const frames = createCoalescer<StreamFrame>((batch) => {
          if (controller.signal.aborted) return
          const before = get().view
          const view = foldFrames(before, batch)
          const left = edits.size === 0 ? [] : editsLeft(before, view, edits)
          set({ view })
          if (left.length === 0) return
          // An edit in progress whose message left the queue: its editor leaves the page; what was typed goes to the Message box.
          for (const edit of left) edits.delete(edit.messageId)
          const texts = left.flatMap((edit) => (edit.text === null ? [] : [edit.text]))
          callComposer(id, texts.length === 0 ? null : texts.join('\n\n'))
          for (const edit of left) notify('info', `edit-lost:${edit.messageId}`, id, edit.notice)
        }, scheduler)
        controller.signal.addEventListener('abort', () => frames.cancel())
        const reload = (): void => {
          notify('info', 'reloaded', id, 'The host restarted without some events it had streamed but not yet saved: the session was reloaded from its log.')
          get().select(id)
        }
        void (async () => {
          try {
            // chunks: false — finished steps arrive as their assistant/message alone (it carries the whole
            // text), so a long session loads a fraction of the events; the open step still streams.
            const onRetry = (notice: RetryNotice): void => {
              if (!controller.signal.aborted) set({ connection: reconnecting(notice) })
            }
            for await (const frame of client.stream(id, { signal: controller.signal, chunks: false, retry: STREAM_RETRY, onRetry })) {
              if (controller.signal.aborted) return
              if (get().connection.state !== 'live') set({ connection: { state: 'live', retries: 0 } })
              // The client checked, on a reconnect, that the host's log up to the page's cursor is
              // the one the page drew (its fingerprint), and found another: draw it again from seq 0.
              if (frame.event === 'reset') return reload()
              // Its last frame: the session was removed (here, in another tab, by another client); the stream has ended.
              if (frame.event === 'session.removed') return dropRemoved([id])
              frames.push(frame)
            }
          } catch (error) {
            if (controller.signal.aborted) return
            // The host's log ends before the last seq drawn (it lost unsaved events): reload from it.
            if (error instanceof HostClientError && error.code === 'replay-unavailable') return reload()
            // Refused for good (401, 403, 404): no retry comes, so the banner must not say one does.
            set({ connection: { state: 'stopped', retries: 0 } })
            // No such session, or an id no session can have: said in its place, not in a notice beside an idle-looking session.
            const unavailable = sessionUnavailable(id, error)
            if (unavailable !== null) set({ unavailable })
            else if (!refused(error)) notify('error', 'session-stream', id, stoppedBecause('The session stream', error, 'try again'))
          }
        })()
      },

      async logout() {
        if ((await attempt('Logging out', null, () => client.logout())) === undefined) return
        follow?.abort()
        followList?.abort()
        set({ auth: 'required', loggedIn: false, sessions: [] })
      },

      async createSession() {
        const created = await attempt('Creating a session', null, () => client.createSession())
        if (created === undefined) return
        await get().refreshSessions()
        get().select(created.id)
        // A new session is there to be written to: the focus goes to its Message box, not left on New session.
        callComposer(created.id, null, 'take')
      },

      async send(text, delivery, clientMessageId, sentBefore) {
        const id = current()
        const what = delivery === 'steer' ? 'Steering' : 'Queueing'
        const receipt = await attempt(what, id, async () => {
          // The same words sent before the other way, their answer lost: admitted, they would run twice (sent-before.ts).
          const before = sentBefore === undefined ? null : await admittedBefore(client, id, sentBefore)
          if (sentBefore !== undefined && before !== null) {
            notify('info', what, id, sentBeforeNotice(sentBefore, before, delivery))
            return 'sent-before' as const
          }
          try {
            return await client.send(id, { content: text, delivery, ...(clientMessageId === undefined ? {} : { clientMessageId }) })
          } catch (error) {
            // The id went before with other words or delivery, and the host took that message (its answer never
            // reached the page): this one is not sent, and sending it under that id again never will be. Said
            // plainly, not as a failure to retry — the caller forgets the id (id-taken.ts). Words that are in no
            // message come back to the box, as a new message's.
            const taken = idTaken(error)
            if (taken === null) throw error
            notify('info', what, id, idTakenNotice(taken))
            if (taken.content) callComposer(id, text)
            return 'id-taken' as const
          }
        })
        if (receipt === 'id-taken' || receipt === 'sent-before') return true
        if (receipt?.duplicate === true) notify('info', 'not-sent-twice', id, 'Not sent twice: the host had already taken this message when it was sent before (its answer never reached the page).')
        else if (receipt?.rerouted === true) notify('info', 'kept-queued', id, 'Kept queued: the turn ended before the steer could join it, so it will run as the next turn.')
        return receipt !== undefined
      },

      async edit(messageId, text) {
        const id = current()
        return (await attempt('Editing', id, () => client.editMessage(id, messageId, text))) !== undefined
      },

      async remove(messageId) {
        const id = current()
        await attempt('Removing', id, () => client.removeMessage(id, messageId))
      },

      async promote(messageId) {
        const id = current()
        try {
          await client.promote(id, messageId)
        } catch (error) {
          // No turn to steer (or it ended first): the host leaves the message queued, and says so.
          if (error instanceof HostClientError && error.code === 'steer-unavailable') notify('info', 'kept-queued', id, 'Kept queued: no turn is running to steer, so it stays a follow-up.')
          else notify('error', 'Promoting', id, `Promoting failed: ${error instanceof HostClientError ? error.message : String(error)}`)
        }
      },

      async reorder(order) {
        const id = current()
        await attempt('Reordering', id, () => client.reorder(id, order))
      },

      async stop(keepInbox) {
        const id = current()
        await attempt('Stopping', id, () => client.cancel(id, { keepInbox }))
      },

      async interruptChild(childId) {
        await attempt('Interrupting the child', childId, () => client.cancel(childId))
      },

      async resume() {
        const id = current()
        await attempt('Resuming', id, () => client.wake(id))
      },

      async removeSession(id) {
        const answer = await attempt('Removing the session', id, async () => {
          try {
            return await client.removeSession(id)
          } catch (error) {
            // Removed meanwhile (another tab, another client): what was asked for is done.
            if (error instanceof HostClientError && error.code === 'session-not-found') return { removed: [id] }
            throw error
          }
        })
        if (answer === undefined) return false
        // At once, not only when the host stream's frames come (they may come first, or — the stream down — later).
        dropRemoved(answer.removed)
        return true
      },

      async fork(afterTurn) {
        const id = current()
        const forked = await attempt('Forking', id, () => client.fork(id, { afterTurn }))
        if (forked === undefined) return
        await get().refreshSessions()
        get().select(forked.id)
        // Fork's button left the page with the parent's turns: the focus goes where the user continues, the fork's Message box.
        callComposer(forked.id, null)
      },

      dismiss(id) {
        board.dismiss(id)
      },

      holdNotices(held) {
        board.hold(held)
      },

      inspect(turn) {
        set({ inspecting: turn })
      },

      noteEdit(messageId, text) {
        if (text === null) edits.delete(messageId)
        else edits.set(messageId, text)
      },

      takeComposerCall(callIdTaken) {
        if (get().composerCall?.id === callIdTaken) set({ composerCall: null })
      },

      dispose() {
        board.stop()
        follow?.abort()
        follow = null
        followList?.abort()
        followList = null
      },
    }
  })
  return store
}
