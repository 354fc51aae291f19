import { BosunError, ErrorCodes } from '@bosun/core'
import type { SessionEvent, SessionWriter } from '@bosun/core'
import { encodeEvent, type EventRow } from './codec.js'
import type { Database } from './database.js'
import { staleWriter, storeError } from './errors.js'
import type { Lease } from './leases.js'

/** What the writer asks of its store. */
export interface WriterHost {
  readonly db: Database
  readonly windowMs: number
  /** Called after each committed batch with the session's new length (for the NOTIFY). */
  committed(session: string, length: number): void
  /** Called once the writer is closed: release the lease, forget the writer. */
  release(writer: PostgresWriter): Promise<void>
}

/**
 * The write-behind writer of one open session, holding its lease. `append` serialises the event
 * at once and queues it; `batchWindowMs` after the first append of a batch, or at once on
 * `flush()`, everything queued is written by one statement — one transaction (see `append` in
 * schema.ts): the lease's epoch checked `FOR SHARE`, the session's length moved, the rows
 * inserted, the mailbox messages the batch splices marked delivered; a NOTIFY follows. At
 * most one batch is in flight; a failed batch stays queued, in order, ahead of later appends, and
 * the next `flush()` retries it (STALE_WRITER is final: the database refuses it every time).
 */
export class PostgresWriter implements SessionWriter {
  readonly #host: WriterHost
  readonly #session: string
  readonly lease: Lease
  #queue: EventRow[] = []
  /** The seq the next `append` must bring. */
  #next: number
  #timer: ReturnType<typeof setTimeout> | undefined
  #inFlight: Promise<void> | undefined
  /** The error of the last failed batch while its rows are still queued. */
  #failure: BosunError | undefined
  #closed = false
  #closing: Promise<void> | undefined

  constructor(host: WriterHost, session: string, length: number, lease: Lease) {
    this.#host = host
    this.#session = session
    this.#next = length
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
    this.#next++
    this.#schedule()
  }

  /** Resolves once everything appended before the call is committed; rejects with the batch's error otherwise. */
  async flush(): Promise<void> {
    this.#cancelTimer()
    const target = this.#next
    // Each pass either waits for the batch in flight or writes what is queued; a failure ends the flush.
    while (this.#committed() < target) {
      if (this.#inFlight !== undefined) await this.#inFlight
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
      await this.#host.release(this)
    }
  }

  #committed(): number {
    return this.#next - this.#queue.length
  }

  #write(): Promise<void> {
    const rows = this.#queue.slice()
    const first = rows[0]!.seq
    const delivered: string[] = []
    const deliveredAt: number[] = []
    for (const row of rows) for (const id of row.inserted ?? []) delivered.push(id), deliveredAt.push(row.seq)
    const { db } = this.#host
    const batch = (async () => {
      let result: { epoch: string | null; holder: string | null; stored: number | null; inserted: number } | undefined
      try {
        result = (await db.query<NonNullable<typeof result>>(db.sql.append, [
          this.#session, this.lease.owner, this.lease.epoch, first,
          rows.map((r) => r.type), rows.map((r) => r.time), rows.map((r) => r.data), rows.map((r) => r.extra),
          delivered, deliveredAt,
        ])).rows[0]
      } catch (error) {
        throw storeError(db.name, `write ${rows.length} events of session "${this.#session}"`, error, { session: this.#session, seq: first })
      }
      if (result?.inserted === rows.length) return this.#host.committed(this.#session, first + rows.length)
      if (result?.stored === null || result === undefined) {
        throw new BosunError(ErrorCodes.STORE, `PostgreSQL store ${db.name}: session "${this.#session}" is not in the database (was it deleted while open?).`, {
          details: { database: db.name, session: this.#session },
        })
      }
      if (result.epoch !== this.lease.epoch) {
        const by = result.holder === null ? 'its lease is gone' : `its lease was taken over (epoch ${String(result.epoch ?? '?')}, owner "${result.holder}")`
        throw staleWriter(db.name, this.#session, by, { epoch: this.lease.epoch, seq: first })
      }
      throw staleWriter(db.name, this.#session, `${result.stored} events are stored, but this batch starts at seq ${first} (another writer appended)`, { stored: result.stored, seq: first })
    })()
    this.#inFlight = batch.then(
      () => {
        // Rows appended meanwhile stay queued behind the ones just committed.
        this.#queue = this.#queue.slice(rows.length)
        this.#failure = undefined
        this.#inFlight = undefined
      },
      (error: BosunError) => {
        this.#failure = error
        this.#inFlight = undefined
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

  #cancelTimer(): void {
    if (this.#timer === undefined) return
    clearTimeout(this.#timer)
    this.#timer = undefined
  }
}
