import { BosunError, ErrorCodes } from '@bosun/core'
import type { LogSummaryFold, SessionEvent, SessionWriter } from '@bosun/core'
import { encodeEvent, type EventRow } from './codec.js'
import type { Database } from './database.js'
import { staleWriter } from './errors.js'
import type { GroupCommit } from './group-commit.js'
import type { Lease } from './leases.js'

const RETRY_FIRST_MS = 100
const RETRY_MAX_MS = 5_000

/** What the writer asks of its store. */
export interface WriterHost {
  readonly db: Database
  readonly windowMs: number
  /** The store's commit rounds (group commit across its writers). */
  readonly commits: GroupCommit
  /** Called once the writer is closed: release the lease, forget the writer. */
  release(writer: PostgresWriter): Promise<void>
}

/**
 * The write-behind writer of one open session, holding its lease. `append` serialises the event
 * at once and queues it; `batchWindowMs` after the first append of a batch, or at once on
 * `flush()`, everything queued joins the store's next commit round (group-commit.ts): one
 * statement — one transaction — writes the batches of every writer that joined, each checked
 * alone as `append` in schema.ts checks one (the lease's epoch read `FOR SHARE`, the session's
 * length moved, the rows inserted, the mailbox messages it splices marked delivered); a NOTIFY
 * follows. At
 * most one batch is in flight; a failed batch stays queued, in order, ahead of later appends, and
 * is retried by the next `flush()` and, without one, by a timer (0.1 s, doubling up to 5 s): a
 * passing failure — a statement timeout under load, a dropped connection — must not leave the
 * events appended after it (a turn's end) in memory only while the lease is still renewed.
 * STALE_WRITER is final: the database refuses it every time.
 */
export class PostgresWriter implements SessionWriter {
  readonly #host: WriterHost
  readonly #session: string
  readonly lease: Lease
  #queue: EventRow[] = []
  /** The events of `#queue`, one per row, for the list summary written with them. */
  #queuedEvents: SessionEvent[] = []
  /** The list summary of the committed log. */
  #summary: LogSummaryFold
  /** The seq the next `append` must bring. */
  #next: number
  #timer: ReturnType<typeof setTimeout> | undefined
  #retry: ReturnType<typeof setTimeout> | undefined
  #retryDelayMs = RETRY_FIRST_MS
  #inFlight: Promise<void> | undefined
  /** The error of the last failed batch while its rows are still queued. */
  #failure: BosunError | undefined
  #closed = false
  #closing: Promise<void> | undefined

  constructor(host: WriterHost, session: string, summary: LogSummaryFold, lease: Lease) {
    this.#host = host
    this.#session = session
    this.#summary = summary
    this.#next = summary.length
    this.lease = lease
  }

  get session(): string {
    return this.#session
  }

  /** Events appended and not yet committed. */
  get pending(): number {
    return this.#queue.length
  }

  append(event: SessionEvent): void {
    const database = this.#host.db.name
    if (this.#closed) {
      throw new BosunError(ErrorCodes.STORE, `PostgreSQL store ${database}: the writer of session "${this.#session}" is closed.`, { details: { database, session: this.#session } })
    }
    if (event?.seq !== this.#next) {
      throw staleWriter(database, this.#session, `expected an append with seq ${this.#next}, got ${String(event?.seq)}: events are appended in order, without gaps`, { expected: this.#next })
    }
    this.#queue.push(encodeEvent(event, this.#session))
    this.#queuedEvents.push(event)
    this.#next++
    this.#schedule()
  }

  /** Resolves once everything appended before the call is committed; rejects with the batch's error otherwise. */
  async flush(): Promise<void> {
    this.#cancelTimer()
    const target = this.#next
    // Each pass either waits for the batch in flight or writes what is queued; a failure ends the flush.
    while (this.#committed() < target) {
      // A batch in flight that fails (one the window or the retry timer started) is tried again
      // here: this flush reports its own attempt.
      if (this.#inFlight !== undefined) await this.#inFlight.catch(() => {})
      else await this.#write()
    }
  }

  /** Flushes, then releases the lease; appends are refused from the moment it is called. */
  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    this.#closed = true
    try {
      await this.flush()
    } finally {
      this.#cancelTimer()
      clearTimeout(this.#retry)
      await this.#host.release(this)
    }
  }

  #committed(): number {
    return this.#next - this.#queue.length
  }

  #write(): Promise<void> {
    const rows = this.#queue.slice()
    const summary = this.#summary.clone()
    for (let i = 0; i < rows.length; i++) summary.add(this.#queuedEvents[i]!)
    const batch = this.#host.commits.commit(this.lease, rows, JSON.stringify(summary.summary()))
    this.#inFlight = batch.then(
      () => {
        // Rows appended meanwhile stay queued behind the ones just committed.
        this.#queue = this.#queue.slice(rows.length)
        this.#queuedEvents = this.#queuedEvents.slice(rows.length)
        this.#summary = summary
        this.#failure = undefined
        this.#inFlight = undefined
        this.#retryDelayMs = RETRY_FIRST_MS
        // Appended while this batch was in flight (the window found it busy): write them too.
        if (this.#queue.length > 0 && this.#timer === undefined) this.#schedule()
      },
      (error: BosunError) => {
        this.#failure = error
        this.#inFlight = undefined
        this.#retryLater(error)
        throw error
      },
    )
    // A batch started by the timer has no caller: its failure waits in #failure for flush().
    this.#inFlight.catch(() => {})
    return this.#inFlight
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#failure !== undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#queue.length > 0 && this.#inFlight === undefined && this.#failure === undefined) void this.#write().catch(() => {})
      else if (this.#queue.length > 0 && this.#failure === undefined) this.#schedule()
    }, this.#host.windowMs)
  }

  #retryLater(error: BosunError): void {
    if (this.#retry !== undefined || BosunError.is(error, ErrorCodes.STALE_WRITER)) return
    this.#retry = setTimeout(() => {
      this.#retry = undefined
      if (this.#failure !== undefined && this.#inFlight === undefined && this.#queue.length > 0) void this.#write().catch(() => {})
    }, this.#retryDelayMs)
    this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, RETRY_MAX_MS)
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
