import { BosunError, ErrorCodes } from '@bosun/core'
import type { SessionEvent, SessionWriter } from '@bosun/core'
import { encodeEvent, type EventRow } from './codec.js'
import type { Connection } from './database.js'
import { storeError } from './errors.js'

/**
 * The write-behind writer of one open session. `append` serialises the event at once and queues
 * it; the queue is committed as ONE transaction `batchWindowMs` after the first append of a batch,
 * or at once by `flush()`. better-sqlite3 is synchronous, so a commit runs to completion on the
 * event loop and at most one batch is ever in flight. A failed batch is rolled back and stays
 * queued, in order, ahead of later appends; the timer stops writing until a `flush()` retries it,
 * and every `flush()` rejects with the error until one succeeds.
 */
export class SqliteWriter implements SessionWriter {
  readonly #connection: Connection
  readonly #session: string
  readonly #windowMs: number
  readonly #release: (writer: SqliteWriter) => void
  #queue: EventRow[] = []
  /** The seq the next `append` must bring. */
  #next: number
  #timer: ReturnType<typeof setTimeout> | undefined
  /** The error of the last failed batch, while that batch is still queued. */
  #failure: BosunError | undefined
  #closed = false

  constructor(connection: Connection, session: string, length: number, windowMs: number, release: (writer: SqliteWriter) => void) {
    this.#connection = connection
    this.#session = session
    this.#next = length
    this.#windowMs = windowMs
    this.#release = release
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
    this.#next++
    this.#schedule()
  }

  flush(): Promise<void> {
    this.#cancelTimer()
    try {
      this.#commit()
      return Promise.resolve()
    } catch (error) {
      return Promise.reject(error)
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    try {
      await this.flush()
    } finally {
      // Released even when the last flush failed: the rejection tells the caller what was not written.
      this.#closed = true
      this.#cancelTimer()
      this.#release(this)
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#failure !== undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      try {
        this.#commit()
      } catch {
        // Kept in #failure with the batch still queued: the next flush() retries and reports it.
      }
    }, this.#windowMs)
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Commits everything queued as one transaction, or leaves it queued and throws. */
  #commit(): void {
    if (this.#queue.length === 0) return
    const batch = this.#queue
    try {
      this.#connection.appendBatch(this.#session, batch)
    } catch (error) {
      this.#failure = storeError(this.#connection.file, `write ${batch.length} events of session "${this.#session}"`, error, {
        session: this.#session,
        seq: batch[0]!.seq,
      })
      throw this.#failure
    }
    // Synchronous: no append can have happened during the commit.
    this.#queue = []
    this.#failure = undefined
  }
}
