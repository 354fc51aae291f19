import { BosunError, ErrorCodes, invalidArgument } from '../errors.js'
import { EventLog } from '../session/event-log.js'
import type { SessionEvent, SessionHeader } from '../session/events.js'
import { assertSessionId } from './session-id.js'
import { LogSummaryFold } from './summary.js'
import { keepsLogIn, type LogKeepingWriter, type SessionSummary, type Store, type StoredSession } from './types.js'

interface Entry {
  header: SessionHeader
  /**
   * The stored log. Either the store's own, or (with `owner` set) the log object of the Session
   * whose writer appended last: that writer pushes each event it accepts there, once, instead of
   * the session and the store pushing it into two arrays, and the pages the idle sweep seals in
   * that session's log are the store's too (held once, off the heap).
   */
  events: EventLog
  owner: MemoryWriter | undefined
  /**
   * The list summary of the log's first `summary.length` events, folded on by `list()` over the
   * events appended since the last list (none on the append path). The stored log only grows (a
   * writer that takes it over brings the same events), so the fold stays of its prefix.
   */
  summary?: LogSummaryFold
  /** Writers handed out for this entry and not closed yet: `remove` refuses while there is one. */
  openWriters: number
}

/** What the writers of one memory store share with it. */
interface StoreState {
  closed: boolean
}

const closedError = () => new BosunError(ErrorCodes.STORE, 'The memory store is closed.')

/**
 * The writer of one opened (or created) memory session. A class, not an object literal of
 * closures: with many sessions in one process each append found a writer, its `append` closure,
 * that closure's context, the store's context and `ensureOpen` cold in the cache, one miss each
 * (figure 7's profile, docs/benchmarks.md section 6); a class instance keeps what the common
 * append reads in one object.
 */
class MemoryWriter implements LogKeepingWriter {
  readonly #entry: Entry
  readonly #state: StoreState
  /** The array (or view) handed out with this writer, until a Session takes it over (`keepsLogIn`). */
  #handed: readonly SessionEvent[] | undefined
  /** The Session's log, once taken over: every accepted event is pushed there. */
  #shared: EventLog | undefined
  /** `#shared` is the entry's log and the store is open: an append is a seq check and a push. */
  #owns = false
  /** Closed: its session's log stays the stored one only until another session takes the entry. */
  #closed = false

  constructor(entry: Entry, state: StoreState, handed: readonly SessionEvent[]) {
    this.#entry = entry
    this.#state = state
    this.#handed = handed
    entry.openWriters++
  }

  append(event: SessionEvent): void {
    const shared = this.#shared
    if (this.#owns && event.seq === shared!.length) {
      shared!.push(event)
      return
    }
    this.#appendChecked(event)
  }

  /** Any other append: a closed store, a second writer, a writer no Session took over. */
  #appendChecked(event: SessionEvent): void {
    if (this.#state.closed) throw closedError()
    const entry = this.#entry
    const log = entry.events
    const shared = this.#shared
    // A Session's seq is its log's length: that log must be the whole stored log as well.
    if (event.seq !== log.length || (shared !== undefined && shared.length !== log.length)) {
      throw new BosunError(
        ErrorCodes.STALE_WRITER,
        `Session "${entry.header.id}" has ${log.length} stored events but an append brought seq ${event.seq}: another writer is using this session. Reopen it to continue.`,
      )
    }
    const previous = entry.owner
    // The previous owner's session keeps its array, which stops being the stored log: its next
    // append finds a longer log and is refused as stale.
    if (previous !== undefined && previous !== this) previous.#owns = false
    if (shared !== undefined) {
      // Same length, and every writer's array is a copy of a prefix of the log: the same events.
      entry.events = shared
      entry.owner = this
      this.#owns = true
      shared.push(event)
    } else {
      if (previous !== undefined) {
        // The previous owner's log stays its session's: the store's own copy (the pages shared).
        const own = log.fork()
        own.push(event)
        entry.events = own
        entry.owner = undefined
      } else {
        log.push(event)
      }
    }
  }

  [keepsLogIn](events: readonly SessionEvent[], log: EventLog = EventLog.from(events)): boolean {
    if (events !== this.#handed) return false
    this.#handed = undefined
    this.#shared = log
    const entry = this.#entry
    // Nothing appended since the hand-out and no other session's log is the stored one: this one
    // becomes it now, and the store's own copy is dropped (one log per idle session, not two).
    // Otherwise it becomes the log with this writer's first accepted append.
    // A closed owner gives way: else its whole log would stay live in the store beside this one,
    // which the sweep seals (two logs for one session, the sealed one saving nothing).
    if ((entry.owner === undefined || entry.owner.#closed) && !this.#state.closed && log.length === entry.events.length) {
      if (entry.owner !== undefined) entry.owner.#owns = false
      entry.events = log
      entry.owner = this
      this.#owns = true
    }
    return true
  }

  /** The store closed: appends take the checked path, which refuses them. */
  disown(): void {
    this.#owns = false
  }

  flush(): Promise<void> {
    return Promise.resolve()
  }

  close(): Promise<void> {
    if (!this.#closed) this.#entry.openWriters--
    this.#closed = true
    return Promise.resolve()
  }
}

/**
 * The built-in store: sessions live in this process's memory, shared by every agent that uses the
 * same store object (so an agent can resume a session another one wrote). Nothing survives a
 * restart. Appends and flushes are immediate.
 *
 * @example
 * const store = memoryStore()
 * const agent = await createAgent({ model, store })
 */
export function memoryStore(): Store {
  const sessions = new Map<string, Entry>()
  const state: StoreState = { closed: false }

  const ensureOpen = () => {
    if (state.closed) throw closedError()
  }

  return {
    name: 'memory',
    async create(header, seed = []) {
      ensureOpen()
      assertSessionId(header.id)
      if (sessions.has(header.id)) {
        throw new BosunError(ErrorCodes.SESSION_EXISTS, `Session "${header.id}" already exists in the memory store.`)
      }
      const entry: Entry = { header, events: new EventLog([...seed]), owner: undefined, openWriters: 0 }
      sessions.set(header.id, entry)
      const events = [...seed]
      return { header, events, writer: new MemoryWriter(entry, state, events) } satisfies StoredSession
    },
    async open(id) {
      ensureOpen()
      assertSessionId(id)
      const entry = sessions.get(id)
      if (!entry) return undefined
      // A sealed log is handed out as a view of a fork: its pages shared, not decoded; the tail copied.
      const log = entry.events
      const events = log.pages.length === 0 ? [...log.tail] : log.fork().events()
      return { header: entry.header, events, writer: new MemoryWriter(entry, state, events) }
    },
    async has(id) {
      ensureOpen()
      assertSessionId(id)
      return sessions.has(id)
    },
    async header(id) {
      ensureOpen()
      assertSessionId(id)
      return sessions.get(id)?.header
    },
    async summary(id) {
      ensureOpen()
      assertSessionId(id)
      const entry = sessions.get(id)
      return entry === undefined ? undefined : summaryOf(entry)
    },
    async readEvents(id, fromSeq, limit = 1000) {
      ensureOpen()
      assertSessionId(id)
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 0) throw invalidArgument(`readEvents(): "fromSeq" must be a non-negative integer, got ${String(fromSeq)}.`)
      if (!Number.isSafeInteger(limit) || limit < 1) throw invalidArgument(`readEvents(): "limit" must be a positive integer, got ${String(limit)}.`)
      // A sealed page is decoded only for the events asked for.
      return sessions.get(id)?.events.slice(fromSeq, fromSeq + limit) ?? []
    },
    async list() {
      ensureOpen()
      return [...sessions.values()].map((entry): SessionSummary => ({ ...summaryOf(entry), delegation: entry.header.delegation ?? null }))
    },
    async remove(id) {
      ensureOpen()
      assertSessionId(id)
      const entry = sessions.get(id)
      if (entry === undefined) return false
      if (entry.openWriters > 0) {
        throw new BosunError(ErrorCodes.SESSION_LOCKED, `Session "${id}" is open for writing in this process (an agent or a writer of the memory store has it): close it, then remove it.`, { details: { sessionId: id } })
      }
      sessions.delete(id)
      return true
    },
    async close() {
      state.closed = true
      for (const entry of sessions.values()) entry.owner?.disown()
    },
  }
}

/** An entry's list item (its header's delegation aside), its summary folded on over the events appended since the last one. */
function summaryOf(entry: Entry): SessionSummary & { length: number } {
  const { header, events } = entry
  const fold = (entry.summary ??= new LogSummaryFold(header))
  if (fold.length < events.length) for (const event of events.slice(fold.length)) fold.add(event)
  return { id: header.id, createdAt: header.createdAt, ...(header.parent === undefined ? {} : { parent: header.parent }), ...fold.summary() }
}
