import { BosunError, ErrorCodes } from '@bosun/core'
import type { LogSummaryFold, SessionEvent, SessionWriter } from '@bosun/core'
import { encodeEvent, type EventRow } from './codec.js'
import type { CommitMember, Connection, StoredSummary } from './database.js'
import { storeError } from './errors.js'
import { storedSummary, SUMMARY_LAG_MAX, turnOpenAfter } from './summary-row.js'

/**
 * The write-behind writer of one open session. `append` serialises the event at once and queues
 * it. `batchWindowMs` after the first append of a batch, or at once on `flush()`, the writer joins
 * its connection's commit queue: one macrotask later a single transaction writes the queued rows of
 * every writer that joined (group commit, one savepoint per writer, one COMMIT and fsync for all),
 * and `flush()` resolves or rejects with this writer's own outcome. A writer is queued at most once
 * at a time, and a round takes its rows and settles them synchronously, so at most one batch per
 * writer is ever in flight. A failed batch is rolled back and stays queued, in order, ahead of
 * later appends; the timer stops writing until a `flush()` retries it, and every `flush()` rejects
 * with the error until one succeeds.
 */
export class SqliteWriter implements SessionWriter, CommitMember {
  readonly #connection: Connection
  readonly #session: string
  readonly #key: number
  readonly #windowMs: number
  readonly #release: (writer: SqliteWriter) => void
  #queue: EventRow[] = []
  /** The events of `#queue`, one per row, for the summary written with them. */
  #queuedEvents: SessionEvent[] = []
  /** The list summary of the committed log; `#candidate`, of the log once the round's rows are in. */
  #summary: LogSummaryFold
  #candidate: LogSummaryFold | undefined
  /** Whether a turn is open after the committed log (as far as this writer saw it: a writer opened mid-turn says no, and writes). */
  #turnOpen = false
  #candidateTurnOpen = false
  /** The length of the summary row this writer last wrote; -1 before its first (the row may be an older build's). */
  #summaryWritten = -1
  #candidateWritten = -1
  /** The seq the next `append` must bring. */
  #next: number
  #timer: ReturnType<typeof setTimeout> | undefined
  /** The error of the last failed batch, while that batch is still queued. */
  #failure: BosunError | undefined
  /** Set while this writer waits in its connection's commit queue: settled by that round. */
  #round: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | undefined
  #closed = false
  #closing: Promise<void> | undefined

  constructor(connection: Connection, session: { id: string; key: number }, summary: LogSummaryFold, windowMs: number, release: (writer: SqliteWriter) => void) {
    this.#connection = connection
    this.#session = session.id
    this.#key = session.key
    this.#summary = summary
    this.#next = summary.length
    this.#windowMs = windowMs
    this.#release = release
  }

  /** The session this writer appends to. */
  get session(): string {
    return this.#session
  }

  /** @internal CommitMember: the key of the session this writer opened (its batches go there only). */
  get key(): number {
    return this.#key
  }

  /** Events appended but not yet committed. */
  get pending(): number {
    return this.#queue.length
  }

  append(event: SessionEvent): void {
    if (this.#closed) {
      throw new BosunError(ErrorCodes.STORE, `SQLite store ${this.#connection.file}: the writer of session "${this.#session}" is closed.`, {
        details: { file: this.#connection.file, session: this.#session },
      })
    }
    if (event?.seq !== this.#next) {
      throw new BosunError(
        ErrorCodes.STALE_WRITER,
        `SQLite store ${this.#connection.file}: session "${this.#session}" expected an append with seq ${this.#next}, got ${String(event?.seq)}: events must be appended in order, without gaps.`,
        { details: { file: this.#connection.file, session: this.#session, expected: this.#next } },
      )
    }
    this.#queue.push(encodeEvent(event, this.#session))
    this.#queuedEvents.push(event)
    this.#next++
    this.#schedule()
  }

  /**
   * Resolves once everything appended before the call is committed (with the other writers that
   * flush in the same tick, in one transaction); rejects with this writer's error otherwise.
   */
  flush(): Promise<void> {
    this.#cancelTimer()
    if (this.#queue.length === 0) return Promise.resolve()
    try {
      return this.#enqueue()
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Flushes, then releases the writer; later appends are refused from the moment it is called.
   * Rejects if the last flush failed (the writer is released anyway: the rejection is the report of
   * what was not written). Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    // Refused from now on: an append while the last round is pending would otherwise be left behind.
    this.#closed = true
    try {
      await this.flush()
    } finally {
      this.#cancelTimer()
      this.#release(this)
    }
  }

  /** @internal CommitMember: the rows the commit round writes for this writer. */
  pendingRows(): readonly EventRow[] {
    return this.#queue
  }

  /**
   * @internal CommitMember: the summary row once the `rows` first queued rows are written (O(rows)),
   * or `undefined` when the batch leaves a turn open and the row is less than SUMMARY_LAG_MAX events
   * behind: it is written with the batch that ends the turn (summary-row.ts says why).
   */
  summaryAfter(rows: number): StoredSummary | undefined {
    const fold = this.#summary.clone()
    for (let i = 0; i < rows; i++) fold.add(this.#queuedEvents[i]!)
    this.#candidate = fold
    this.#candidateTurnOpen = turnOpenAfter(this.#turnOpen, this.#queuedEvents, rows)
    const due = this.#summaryWritten < 0 || !this.#candidateTurnOpen || fold.length - this.#summaryWritten >= SUMMARY_LAG_MAX
    this.#candidateWritten = due ? fold.length : this.#summaryWritten
    return due ? storedSummary(fold) : undefined
  }

  /** @internal CommitMember: the outcome of the round for the `rows` first queued rows. */
  settle(rows: number, error: unknown): void {
    const round = this.#round
    this.#round = undefined
    const candidate = this.#candidate
    this.#candidate = undefined
    if (error === undefined) {
      // Synchronous with pendingRows(): no append can have happened in between.
      this.#queue = this.#queue.slice(rows)
      this.#queuedEvents = this.#queuedEvents.slice(rows)
      if (candidate !== undefined) {
        this.#summary = candidate
        this.#turnOpen = this.#candidateTurnOpen
        this.#summaryWritten = this.#candidateWritten
      }
      this.#failure = undefined
      round?.resolve()
      return
    }
    const first = this.#queue[0]
    this.#failure = storeError(this.#connection.file, `write ${rows} events of session "${this.#session}"`, error, {
      session: this.#session,
      ...(first === undefined ? {} : { seq: first.seq }),
    })
    round?.reject(this.#failure)
  }

  /** Joins the connection's next commit round (once); the promise settles with this writer's outcome. */
  #enqueue(): Promise<void> {
    if (this.#round === undefined) {
      let resolve!: () => void
      let reject!: (error: unknown) => void
      const promise = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A round started by the timer has no caller: its failure is kept in #failure for flush().
      promise.catch(() => {})
      this.#connection.requestCommit(this)
      this.#round = { promise, resolve, reject }
    }
    return this.#round.promise
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#failure !== undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      if (this.#queue.length === 0 || this.#failure !== undefined) return
      try {
        void this.#enqueue()
      } catch {
        // The connection is closed: the rows stay queued, and flush()/close() report it.
      }
    }, this.#windowMs)
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
