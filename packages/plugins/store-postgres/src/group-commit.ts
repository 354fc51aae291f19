import type { BosunError } from '@bosun/core'
import type { EventRow } from './codec.js'
import type { Database } from './database.js'
import { sqlState, staleWriter, storeError } from './errors.js'
import type { Lease } from './leases.js'

/** One writer's batch waiting for a commit round. */
interface Batch {
  lease: Lease
  rows: readonly EventRow[]
  /** The session's list summary once `rows` are in (schema.ts, `sessions.summary`). */
  summary: string
  resolve: () => void
  reject: (error: BosunError) => void
}

/** What the single-batch statement and the group statement say about one batch. */
interface Outcome {
  written: boolean
  /** The epoch of the lease row the statement locked as this owner's, null when it was not (taken over, even while the statement waited). */
  held: string | null
  epoch: string | null
  holder: string | null
  stored: number | null
}

/**
 * Group commit: the batches that writers of one store hand in during the same tick are written
 * by one statement (`appendGroup`), so one transaction and one WAL flush serve them all, and each
 * writer still gets its own outcome — a batch whose lease or seq does not hold is refused alone.
 * Rounds do not wait for each other: a round runs on its own pool connection as soon as it is
 * formed (a writer has at most one batch in flight, so two rounds never touch the same session).
 * If the statement fails as a whole on a duplicate seq (the primary key), each batch is retried
 * alone, so that only the offending one is refused.
 */
export class GroupCommit {
  readonly #db: Database
  readonly #committed: (session: string, length: number, status: SessionStatus | null) => void
  /** A batch refused because its lease was taken over (or is gone): the store reports the lease lost. */
  readonly #fenced: (lease: Lease, error: BosunError) => void
  #waiting: Batch[] = []

  constructor(db: Database, committed: (session: string, length: number, status: SessionStatus | null) => void, fenced: (lease: Lease, error: BosunError) => void = () => {}) {
    this.#db = db
    this.#committed = committed
    this.#fenced = fenced
  }

  /** Joins the next round; resolves once `rows` (and `summary` with them) are committed, rejects with this batch's error. */
  commit(lease: Lease, rows: readonly EventRow[], summary: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ lease, rows, summary, resolve, reject }) === 1) setImmediate(() => void this.#round())
    })
  }

  async #round(): Promise<void> {
    const batches = this.#waiting
    this.#waiting = []
    let outcomes: Outcome[]
    try {
      outcomes = batches.length === 1 ? [await this.#one(batches[0]!)] : await this.#group(batches)
    } catch (error) {
      if (sqlState(error) === '23505' && batches.length > 1) {
        // Which batch took a stored seq? Each alone, in parallel on the pool.
        await Promise.all(batches.map(async (batch) => this.#settle(batch, await this.#one(batch).catch((e: unknown) => e))))
        return
      }
      for (const batch of batches) this.#settle(batch, error)
      return
    }
    batches.forEach((batch, i) => this.#settle(batch, outcomes[i]!))
  }

  async #one({ lease, rows, summary }: Batch): Promise<Outcome> {
    const delivered = deliveries(rows)
    const result = (await this.#db.query<Outcome & { inserted: number }>(this.#db.sql.append, [
      lease.session, lease.owner, lease.epoch, rows[0]!.seq,
      rows.map((r) => r.type), rows.map((r) => r.time), rows.map((r) => r.data), rows.map((r) => r.extra),
      delivered.map((d) => d.id), delivered.map((d) => d.seq), statusLeft(rows), summary,
    ])).rows[0]
    return { written: result?.inserted === rows.length, held: result?.held ?? null, epoch: result?.epoch ?? null, holder: result?.holder ?? null, stored: result?.stored ?? null }
  }

  async #group(batches: readonly Batch[]): Promise<Outcome[]> {
    const events = batches.flatMap((b) => b.rows.map((row) => ({ session: b.lease.session, row })))
    const delivered = batches.flatMap((b) => deliveries(b.rows).map((d) => ({ session: b.lease.session, ...d })))
    const { rows } = await this.#db.query<Outcome & { session: string }>(this.#db.sql.appendGroup, [
      batches.map((b) => b.lease.session), batches.map((b) => b.lease.epoch), batches.map((b) => b.rows[0]!.seq), batches.map((b) => b.rows.length),
      batches[0]!.lease.owner,
      events.map((e) => e.session), events.map((e) => e.row.seq), events.map((e) => e.row.type), events.map((e) => e.row.time), events.map((e) => e.row.data), events.map((e) => e.row.extra),
      delivered.map((d) => d.session), delivered.map((d) => d.id), delivered.map((d) => d.seq),
      batches.map((b) => statusLeft(b.rows)), batches.map((b) => b.summary),
    ])
    const bySession = new Map(rows.map((row) => [row.session, row]))
    return batches.map((b) => bySession.get(b.lease.session) ?? { written: false, held: null, epoch: null, holder: null, stored: null })
  }

  #settle(batch: Batch, outcome: Outcome | unknown): void {
    const { lease, rows } = batch
    const first = rows[0]!.seq
    const db = this.#db
    const result = outcome as Partial<Outcome> | null
    if (typeof result !== 'object' || result === null || typeof result.written !== 'boolean') {
      return batch.reject(storeError(db, `write ${rows.length} events of session "${lease.session}"`, outcome, { session: lease.session, seq: first }))
    }
    if (result.written) {
      this.#committed(lease.session, first + rows.length, statusLeft(rows))
      return batch.resolve()
    }
    if (result.stored === null) {
      // Removed (store.remove, once this writer's lease had expired; or deleted by hand): final,
      // as a takeover is — a retry would be refused for ever — and reported as a lost lease, so
      // that a host drops the session instead of running its turn on into nowhere.
      const error = staleWriter(db.name, lease.session, 'the session is no longer stored (it was removed)', { epoch: lease.epoch, seq: first, removed: true })
      this.#fenced(lease, error)
      return batch.reject(error)
    }
    if (result.held !== lease.epoch || result.epoch !== lease.epoch || result.holder !== lease.owner) {
      // The snapshot still shows this owner when the takeover committed while the statement waited for the lock.
      const unseen = result.epoch === lease.epoch && result.holder === lease.owner
      const by = result.holder === null
        ? 'its lease is gone'
        : unseen ? 'its lease was taken over while this batch waited for it' : `its lease was taken over (epoch ${String(result.epoch ?? '?')}, owner "${result.holder}")`
      // Who holds it now, for the host's log line (when the row said).
      const taker = result.holder === null || unseen ? {} : { heldBy: result.holder, ...(result.epoch == null ? {} : { heldEpoch: String(result.epoch) }) }
      const error = staleWriter(db.name, lease.session, by, { epoch: lease.epoch, seq: first, ...taker })
      // Reported before the writer hears of it: a host drops the session before it answers the request whose flush this was.
      this.#fenced(lease, error)
      return batch.reject(error)
    }
    batch.reject(staleWriter(db.name, lease.session, `${result.stored} events are stored, but this batch starts at seq ${first} (another writer appended)`, { stored: result.stored, seq: first }))
  }
}

/** A session's live status, as the `sessions.status` column keeps it. */
export type SessionStatus = 'running' | 'idle'

/** The status a batch leaves its session in: that of its last `turn/start` or `turn/end`, null when it has neither. */
export function statusLeft(rows: readonly EventRow[]): SessionStatus | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const type = rows[i]!.type
    if (type === 'turn/start') return 'running'
    if (type === 'turn/end') return 'idle'
  }
  return null
}

/** The mailbox messages a batch splices into the inbox, with the seq of the splice. */
function deliveries(rows: readonly EventRow[]): Array<{ id: string; seq: number }> {
  const found: Array<{ id: string; seq: number }> = []
  for (const row of rows) for (const id of row.inserted ?? []) found.push({ id, seq: row.seq })
  return found
}
