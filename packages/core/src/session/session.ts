import { BosunError, ErrorCodes } from '../errors.js'
import { copyJson } from '../json.js'
import { logThrown } from '../log-thrown.js'
import { keepsLogIn, type LogKeepingWriter, type SessionWriter, type StoredSession } from '../store/types.js'
import { EventLog } from './event-log.js'
import type { BosunEventMap, EventType, SessionEvent, SessionHeader } from './events.js'
import type { Sealing } from './sealer.js'

/** A synchronous observer of appended events. It must not throw; a throw is contained and reported. */
export type SessionObserver = (event: SessionEvent) => void

export interface SessionOptions {
  /** Where appended events are written behind (the store). Absent: memory only. */
  writer?: SessionWriter
  /** Clock for `time`; defaults to `Date.now`. */
  now?: () => number
  /** Receives errors thrown by observers and projections; defaults to `console.error`. */
  reportError?: (error: unknown, context: string) => void
}

const EVENT_TYPE = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)+$/
/** Types that passed {@link EVENT_TYPE}: a log uses a handful, so the check runs once per type. */
const checkedTypes = new Set<string>()
const MAX_CHECKED_TYPES = 4096

function checkEventType(type: string): void {
  if (typeof type !== 'string' || !EVENT_TYPE.test(type)) {
    throw new BosunError(
      ErrorCodes.INVALID_EVENT_TYPE,
      `Event type ${JSON.stringify(type)} is not a "noun/phase" name (lower-case words separated by "/", e.g. "rate-limit/hit").`,
    )
  }
  if (checkedTypes.size < MAX_CHECKED_TYPES) checkedTypes.add(type)
}

/**
 * Core-internal append for data the loop has just built itself: a fresh plain object of JSON
 * values whose nested objects are already deep-frozen JSON (e.g. `{ turn, step, chunk }` with the
 * chunk copied by `copyJson`). Skips the type check and the outer copy, which are most of the cost
 * of an `assistant/chunk` append. Not exported from the package.
 */
export let appendOwnedData: <T extends EventType>(session: Session, type: T, data: BosunEventMap[T]) => SessionEvent<T>

/** Core-internal: the session's log (its sealed pages and live tail), for the sweeper (sealer.ts). */
export let sessionLog: (session: Session) => EventLog

/** Core-internal: makes the session sealable (sealer.ts, `enableLogPages`). */
export let setSealing: (session: Session, sealing: Sealing) => void

/**
 * Core-internal: gives a session built without a writer (a new session `createAgent` stages until
 * every plugin setup passed) the writer of the stored session just created from it. `stored.events`
 * is what the store was given, a prefix of this log: the events appended since (a setup's timer,
 * during the create) are handed to the writer first, so the stored log is this log.
 */
export let adoptWriter: (session: Session, stored: StoredSession) => void

const closedSession = (id: string) =>
  new BosunError(ErrorCodes.AGENT_CLOSED, `Session "${id}" is closed (its agent was closed, or its build given up): it takes no more events. Create a new agent to resume it.`)

/**
 * An append-only event log. `append` is synchronous: it assigns the next `seq`, freezes the
 * data, hands the event to the store's writer, notifies observers (who therefore see every
 * projection's pre-state) and then the projections, and returns the event. Durability is
 * separate: `await flush()` is the receipt for everything appended before it.
 */
export class Session {
  readonly header: SessionHeader
  /** Sealed pages and a live tail (event-log.ts); the tail alone until the sweeper seals a page. */
  readonly #log: EventLog
  readonly #observers = new Set<SessionObserver>()
  readonly #projections: SessionObserver[] = []
  /** Set by {@link close}: appends are refused from then on, whatever the writer would do. */
  #closed = false
  /** Set once: at construction, or by {@link adoptWriter} for a session staged without one. */
  #writer: SessionWriter | undefined
  /** The writer pushes each event it accepts into `#events` itself (the memory store): see `keepsLogIn`. */
  #writerPushes: boolean
  readonly #now: () => number
  readonly #reportError: (error: unknown, context: string) => void
  /**
   * Plugin event types declared ignorable: their events carry `ignorable: true`. Made on the first
   * declaration: most sessions have none, and an empty `Set` (~180 bytes with its table) was kept
   * by every idle session.
   */
  #ignorable: Set<string> | undefined
  /** Set by `createAgent` unless `logPages: false`: each `turn/end` makes the session a sweep candidate. */
  #sealing: Sealing | undefined
  /** See {@link durableLength}: the stored log is durable; a flush that resolves moves it on. */
  #durable: number

  /**
   * @param events the stored log (already validated by the store); owned by the session from now on,
   *   except that a memory-store writer that handed this very array out takes it over as the
   *   stored log and pushes the events it accepts (`keepsLogIn`): one log, one push per event.
   *   Another session's `events` (a sealed one's view) is read through: its pages are shared.
   */
  constructor(header: SessionHeader, events: readonly SessionEvent[] = [], options: SessionOptions = {}) {
    this.header = Object.freeze({ ...header })
    const log = EventLog.from(events)
    this.#log = log
    this.#writer = options.writer
    this.#writerPushes = options.writer !== undefined && takesLog(options.writer, events, log)
    this.#durable = options.writer === undefined ? 0 : log.length
    this.#now = options.now ?? Date.now
    this.#reportError = options.reportError ?? ((error, context) => logThrown(context, error))
  }

  get id(): string {
    return this.header.id
  }

  /**
   * The whole log, read-only. Index `i` holds the event with `seq === i`. While no page is sealed
   * this is the log's array itself; once the idle sweep has sealed pages it is a read-only view
   * over the whole log (writes throw READ_ONLY), and an event of a sealed page is read back as an
   * equal, frozen copy, not the same object: compare events by `seq`. Read it again rather than
   * keeping it across an idle time (an array kept from before a seal stops growing), and clone
   * it as `structuredClone([...session.events])` (a view is a proxy).
   */
  get events(): readonly SessionEvent[] {
    return this.#log.events()
  }

  get length(): number {
    return this.#log.length
  }

  /** The last event, if any. */
  get last(): SessionEvent | undefined {
    return this.#log.last
  }

  /** The event with this `seq`, or undefined: `events[seq]` without the view (a sealed page is decoded through a small shared cache). */
  eventAt(seq: number): SessionEvent | undefined {
    return this.#log.at(seq)
  }

  /**
   * Appends one event. Refuses a type that is not `noun/phase` and data that is not JSON, with
   * the log unchanged.
   */
  append<T extends EventType>(type: T, data: BosunEventMap[T]): SessionEvent<T>
  append(type: string, data: unknown): SessionEvent
  append(type: string, data: unknown): SessionEvent {
    if (!checkedTypes.has(type)) checkEventType(type)
    const frozen = copyJson(data, () => `Event "${type}" data`)
    if (frozen === null || typeof frozen !== 'object' || Array.isArray(frozen)) {
      throw new BosunError(ErrorCodes.NOT_JSON, `Event "${type}" data must be a JSON object.`)
    }
    return this.#commit(type, frozen as object)
  }

  static {
    appendOwnedData = ((session: Session, type: string, data: object) => session.#commit(type, Object.freeze(data))) as typeof appendOwnedData
    sessionLog = (session) => session.#log
    setSealing = (session, sealing) => {
      session.#sealing = sealing
    }
    adoptWriter = (session, { events, writer }) => {
      if (session.#writer !== undefined) throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${session.id}" already has a writer.`)
      const log = session.#log
      for (let seq = events.length; seq < log.length; seq++) writer.append(log.at(seq)!)
      session.#writer = writer
      session.#writerPushes = takesLog(writer, events, log)
      session.#durable = events.length
    }
  }

  #commit(type: string, frozen: object): SessionEvent {
    // A store's writer may take appends after its close (the memory store's does): a plugin setup
    // that settles after `createAgent` was aborted must not write into the released session.
    if (this.#closed) throw closedSession(this.header.id)
    const log = this.#log
    const seq = log.base + log.tail.length
    const event: SessionEvent = Object.freeze(
      this.#ignorable !== undefined && this.#ignorable.has(type)
        ? { seq, time: this.#now(), type, data: frozen as never, ignorable: true as const }
        : { seq, time: this.#now(), type, data: frozen as never },
    )
    // The writer first: if it refuses the event (a closed or stale store), the log is unchanged.
    // A writer that keeps its log in this session's log object has pushed the event there already.
    this.#writer?.append(event)
    if (!this.#writerPushes) log.tail.push(event)
    // for-of, not Set.forEach: forEach saves the iterator object but calls each observer through a
    // builtin, ~180 instructions more per event (callgrind); the iterator is short-lived garbage.
    for (const observer of this.#observers) {
      try {
        observer(event)
      } catch (error) {
        this.#reportError(error, `session observer (on "${type}")`)
      }
    }
    for (const projection of this.#projections) {
      try {
        projection(event)
      } catch (error) {
        this.#reportError(error, `session projection (on "${type}")`)
      }
    }
    // After the projections: the turn is over for everything that saw its events.
    if (type === 'turn/end') this.#sealing?.markIdle()
    return event
  }

  /**
   * Marks a plugin event type as ignorable: its events are written with `ignorable: true`, so a
   * reader without the plugin may skip them instead of refusing the session.
   */
  declareIgnorable(type: string): void {
    this.#ignorable ??= new Set()
    this.#ignorable.add(type)
  }

  /** Adds a synchronous observer; returns the function that removes it. */
  subscribe(observer: SessionObserver): () => void {
    this.#observers.add(observer)
    return () => this.#observers.delete(observer)
  }

  /**
   * Registers a projection: applied after every observer, in registration order. Projections
   * are the session's derived state (surface, counters); observers see their pre-state.
   */
  project(projection: SessionObserver): void {
    this.#projections.push(projection)
  }

  /** Resolves when every event appended so far is durable in the store; rejects with the write error. */
  flush(): Promise<void> {
    const writer = this.#writer
    if (!writer) return Promise.resolve()
    const upTo = this.#log.length
    const flushed = writer.flush()
    if (upTo <= this.#durable) return flushed
    return flushed.then(() => {
      if (upTo > this.#durable) this.#durable = upTo
    })
  }

  /**
   * How many of the log's first events are known to be durable in the store: every event with
   * `seq < durableLength` was, when a `flush()` — the caller's or the loop's, which flushes before
   * each model request — resolved after it was appended, or when the session was opened. A lower
   * bound: the store may have written later events behind (its batch window) without a flush
   * saying so. 0 for a session without a store writer.
   */
  get durableLength(): number {
    return this.#durable
  }

  /** Flushes, then releases the store's writer. The session accepts no appends afterwards (`AGENT_CLOSED`). */
  async close(): Promise<void> {
    this.#closed = true
    this.#sealing?.close()
    await this.#writer?.close()
  }

  /** Reports an error from code that must not throw (observers, notifications). */
  reportError(error: unknown, context: string): void {
    try {
      this.#reportError(error, context)
    } catch {
      // A reporter that throws has nowhere left to report to.
    }
  }
}

/** Whether `writer` takes over `log`, made of the `events` it was handed out with (`keepsLogIn`). */
function takesLog(writer: SessionWriter, events: readonly SessionEvent[], log: EventLog): boolean {
  return keepsLogIn in writer && (writer as LogKeepingWriter)[keepsLogIn](events, log)
}
