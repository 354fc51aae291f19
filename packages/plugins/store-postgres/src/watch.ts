import pg from 'pg'
import type { Database } from './database.js'
import { storeError } from './errors.js'
import { removedSession } from './removal.js'

/** Options of {@link Watcher}. */
export interface WatchOptions {
  /**
   * How often the watched sessions' lengths and the pending mailbox are polled, in ms, besides
   * NOTIFY (which is lost while the LISTEN connection is down). Default 1000.
   */
  pollIntervalMs?: number
  /** First delay before reconnecting a lost LISTEN connection, in ms, doubled up to 5 s. Default 100. */
  reconnectDelayMs?: number
}

type EventsListener = (length: number) => void
type MailboxListener = (session: string, messageId: string | undefined) => void
type StatusListener = (session: string, status: string) => void
type CreatedListener = (session: string, owner: string) => void
type RemovedListener = (session: string) => void

/**
 * Wake-ups for a host: "session X has N events now" (to push a stream forward from the events
 * table), "session X has new mail" (for its lease owner), "session X changed status", "session
 * X was made" and "session X was removed". One dedicated connection LISTENs on the schema's
 * channels; NOTIFY is sent at the commit of an append, a mailbox post, a status change, a create
 * or a removal. A
 * notification sent while that connection is down is lost, so the watcher also polls — at once
 * after every (re)connection, and every `pollIntervalMs` — the lengths of the watched sessions and
 * the sessions with pending mail. Wake-ups are at-least-once hints: a listener reads what is new
 * (by seq, or `mailbox.pending`) and must not mind a repeat.
 */
export class Watcher {
  readonly #db: Database
  readonly #pollMs: number
  readonly #reconnectMs: number
  readonly #forget: (watcher: Watcher) => void
  readonly #sessions = new Map<string, { listeners: Set<EventsListener>; length: number }>()
  readonly #mail = new Set<MailboxListener>()
  readonly #status = new Set<StatusListener>()
  readonly #created = new Set<CreatedListener>()
  readonly #removed = new Set<RemovedListener>()
  readonly #listen = new Set<() => void>()
  #client: pg.Client | undefined
  /** Ends the LISTEN connection as lost (and reconnects), while it is the current one. */
  #lose: (() => void) | undefined
  /** A ping of the LISTEN connection under way ({@link #ping}). */
  #pinging = false
  #listening = false
  #closed = false
  #poll: ReturnType<typeof setTimeout> | undefined
  #retry: ReturnType<typeof setTimeout> | undefined
  #delay: number
  #connected: { promise: Promise<void>; resolve: () => void }
  /** Counters for tests and diagnostics. */
  readonly stats = { notifications: 0, polls: 0, reconnects: 0 }

  constructor(db: Database, options: WatchOptions = {}, forget: (watcher: Watcher) => void = () => {}) {
    this.#db = db
    this.#pollMs = options.pollIntervalMs ?? 1000
    this.#reconnectMs = options.reconnectDelayMs ?? 100
    this.#delay = this.#reconnectMs
    this.#forget = forget
    this.#connected = deferred()
    this.#schedulePoll(this.#pollMs)
    void this.#connect()
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.#listening
  }

  /** Resolves once the LISTEN connection is up (again). */
  whenListening(): Promise<void> {
    return this.#connected.promise
  }

  /** The server process id of the LISTEN connection (for `pg_terminate_backend` in tests), while connected. */
  get backendPid(): number | undefined {
    return this.#listening ? (this.#client as unknown as { processID?: number } | undefined)?.processID : undefined
  }

  /**
   * Calls `listener(length)` when session `id` is seen with more events than before (a NOTIFY or a
   * poll). Returns the unsubscribe function.
   */
  onEvents(id: string, listener: EventsListener): () => void {
    let entry = this.#sessions.get(id)
    if (entry === undefined) this.#sessions.set(id, (entry = { listeners: new Set(), length: -1 }))
    entry.listeners.add(listener)
    return () => {
      entry.listeners.delete(listener)
      if (entry.listeners.size === 0 && this.#sessions.get(id) === entry) this.#sessions.delete(id)
    }
  }

  /** Calls `listener(session, messageId?)` on new mail (a NOTIFY names the message; a poll only the session). */
  onMailbox(listener: MailboxListener): () => void {
    this.#mail.add(listener)
    return () => this.#mail.delete(listener)
  }

  /**
   * Calls `listener(session, status)` when a session's commit moved it to `running` (a
   * `turn/start`) or `idle` (a `turn/end`), on any host. NOTIFY only: a change sent while the
   * LISTEN connection is down is lost — compare `store.runningSessions()` after a reconnect or
   * now and then to catch up.
   */
  onStatus(listener: StatusListener): () => void {
    this.#status.add(listener)
    return () => this.#status.delete(listener)
  }

  /**
   * Calls `listener(session, owner)` when a session was made — `create`, so also a fork and a
   * subagent's child — by the store whose lease owner is `owner` (compare with your own store's
   * `owner` to skip your own). Sent inside the create's transaction: only for a create that
   * committed, before any NOTIFY of the session's appends. NOTIFY only: a creation sent while the
   * LISTEN connection is down is lost — list the sessions again on {@link onListen}.
   */
  onCreated(listener: CreatedListener): () => void {
    this.#created.add(listener)
    return () => this.#created.delete(listener)
  }

  /**
   * Calls `listener(session)` when a session was removed (`store.remove`), by any store on the
   * schema — this one's too — once the removal committed (the NOTIFY is sent inside its
   * transaction). NOTIFY only: a removal sent while the LISTEN connection is down is lost — list
   * the sessions again on {@link onListen}. A session removed and made again is notified in that
   * order (removal, then creation), as the commits were.
   */
  onRemoved(listener: RemovedListener): () => void {
    this.#removed.add(listener)
    return () => this.#removed.delete(listener)
  }

  /**
   * Calls `listener()` each time the LISTEN connection is up — the first time and after every
   * reconnection — once it LISTENs: the NOTIFYs sent while it was down (or before it first came
   * up) are lost, and whatever is known only from them (creations, status changes) should be read
   * again now. Anything committed after this call is notified.
   */
  onListen(listener: () => void): () => void {
    this.#listen.add(listener)
    return () => this.#listen.delete(listener)
  }

  /** Polls now (the lengths of watched sessions, the sessions with pending mail). */
  async poll(): Promise<void> {
    this.stats.polls++
    const ids = [...this.#sessions.keys()]
    try {
      if (ids.length > 0) {
        const { rows } = await this.#db.query<{ id: string; length: number }>(`SELECT id, length FROM "${this.#db.schema}".sessions WHERE id = ANY($1::text[])`, [ids])
        for (const row of rows) this.#seen(row.id, row.length)
      }
      if (this.#mail.size > 0) {
        const { rows } = await this.#db.query<{ session: string }>(`SELECT DISTINCT session_id AS session FROM "${this.#db.schema}".session_mailbox WHERE delivered_seq IS NULL AND done_at IS NULL LIMIT 1000`)
        for (const row of rows) this.#mailFor(row.session, undefined)
      }
    } catch (error) {
      throw storeError(this.#db, 'poll the watched sessions and the pending mail', error)
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#poll)
    clearTimeout(this.#retry)
    this.#listening = false
    this.#forget(this)
    if (this.#client !== undefined) await endWithin(this.#client, this.#db.answerMs)
  }

  /**
   * Asks the LISTEN connection for an answer (each poll): one that no longer answers (a paused
   * backend, a partition, a failover that left the old address silent) never says it is lost, and
   * no NOTIFY came on it for ever. Its statement times out like any (`query_timeout`): the
   * connection is then lost and replaced. Not awaited by the poll, which asks the pool.
   */
  async #ping(): Promise<void> {
    const client = this.#client
    const lose = this.#lose
    if (!this.#listening || this.#pinging || client === undefined) return
    this.#pinging = true
    try {
      await client.query('SELECT 1')
    } catch {
      if (this.#client === client) lose?.()
    } finally {
      this.#pinging = false
    }
  }

  async #connect(): Promise<void> {
    if (this.#closed) return
    const client = new pg.Client({ ...this.#db.clientConfig, application_name: 'bosun-store-postgres:listen' })
    this.#client = client
    let lost = false
    const onLost = () => {
      if (lost) return
      lost = true
      this.#listening = false
      this.#connected = deferred()
      void endWithin(client, this.#db.answerMs)
      if (this.#closed) return
      this.stats.reconnects++
      this.#retry = setTimeout(() => void this.#connect(), this.#delay)
      this.#delay = Math.min(this.#delay * 2, 5_000)
    }
    this.#lose = onLost
    client.on('error', onLost)
    client.on('end', onLost)
    client.on('notification', (message) => this.#notified(message.channel, message.payload ?? ''))
    try {
      await client.connect()
      const { events, mailbox, status, sessions } = this.#db.channels
      await client.query(`LISTEN "${events}"; LISTEN "${mailbox}"; LISTEN "${status}"; LISTEN "${sessions}"`)
    } catch {
      onLost()
      return
    }
    if (lost || this.#closed) return
    this.#listening = true
    this.#delay = this.#reconnectMs
    this.#connected.resolve()
    // Whatever was notified while no connection listened is found by this poll, and by the
    // listeners that read again what only a NOTIFY tells.
    this.#schedulePoll(0)
    this.#each(this.#listen, (listener) => listener())
  }

  #notified(channel: string, payload: string): void {
    this.stats.notifications++
    const removed = channel === this.#db.channels.sessions ? removedSession(payload) : undefined
    if (removed !== undefined) return this.#each(this.#removed, (listener) => listener(removed))
    const space = payload.indexOf(' ')
    if (space < 0) return
    const session = payload.slice(0, space)
    const rest = payload.slice(space + 1)
    if (channel === this.#db.channels.events) this.#seen(session, Number(rest))
    else if (channel === this.#db.channels.mailbox) this.#mailFor(session, rest)
    else if (channel === this.#db.channels.status) this.#each(this.#status, (listener) => listener(session, rest))
    else if (channel === this.#db.channels.sessions) this.#each(this.#created, (listener) => listener(session, rest))
  }

  #each<T>(listeners: Set<T>, call: (listener: T) => void): void {
    for (const listener of [...listeners]) {
      try {
        call(listener)
      } catch {
        // A listener's failure cannot stop the others.
      }
    }
  }

  #seen(id: string, length: number): void {
    const entry = this.#sessions.get(id)
    if (entry === undefined || !(length > entry.length)) return
    entry.length = length
    this.#each(entry.listeners, (listener) => listener(length))
  }

  #mailFor(session: string, messageId: string | undefined): void {
    this.#each(this.#mail, (listener) => listener(session, messageId))
  }

  #schedulePoll(delay: number): void {
    clearTimeout(this.#poll)
    if (this.#closed) return
    this.#poll = setTimeout(() => {
      void this.#ping()
      this.poll()
        .catch(() => {})
        .finally(() => this.#schedulePoll(this.#pollMs))
    }, delay)
    this.#poll.unref?.()
  }
}

/**
 * Ends a connection politely (Terminate, then the server closes it), or after `ms` (0: no limit)
 * destroys its socket: a server that does not answer never closes its side, and `end()` would
 * wait for ever — the watcher's close, and so a host's.
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  const ended = client.end().then(() => true, () => true)
  if (ms <= 0) {
    await ended
    return
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
    // A lost connection's end is not awaited: it does not keep a process that is done alive.
    timer.unref?.()
  })
  try {
    if (!(await Promise.race([ended, late]))) client.connection.stream.destroy()
  } finally {
    clearTimeout(timer)
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}
