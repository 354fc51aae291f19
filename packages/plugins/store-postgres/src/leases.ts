import { sqlState, storeError, sessionLocked, staleWriter } from './errors.js'
import type { Database } from './database.js'

/** A lease this store holds: it may write `session` while `epoch` is the session's epoch. */
export interface Lease {
  readonly session: string
  readonly owner: string
  /** The fencing epoch, as PostgreSQL's bigint text. */
  readonly epoch: string
}

/** Who holds a session's lease, on the database clock. */
export interface LeaseHolder {
  owner: string
  epoch: string
  /** Milliseconds left; 0 or less when expired (or released). */
  expiresInMs: number
}

/**
 * How a lost lease is reported: `error` (STALE_WRITER) at once; `named`, for a lease the renewal
 * found taken over, resolves later to the same report naming who holds the session now (read for
 * a log line; `error` itself when the read fails; never rejects).
 */
export type LeaseLostListener = (lease: Lease, error: Error, named?: Promise<Error>) => void

/**
 * The leases of one store (one owner): taken on `open`/`create`, renewed together every third of
 * the TTL in one statement, released on a writer's `close`. A lease the renewal no longer finds
 * (another owner took it after it expired) is reported once to `onLost` and forgotten: its
 * writer's next batch is refused by the database anyway, the report lets a host stop the agent.
 */
export class Leases {
  readonly #db: Database
  readonly #owner: string
  readonly #ttlMs: number
  readonly #onLost: LeaseLostListener
  readonly #held = new Map<string, Lease>()
  #timer: ReturnType<typeof setTimeout> | undefined
  #renewing: Promise<void> | undefined
  #closed = false

  constructor(db: Database, owner: string, ttlMs: number, onLost: LeaseLostListener) {
    this.#db = db
    this.#owner = owner
    this.#ttlMs = ttlMs
    this.#onLost = onLost
  }

  get owner(): string {
    return this.#owner
  }

  /** The leases held now. */
  held(): Lease[] {
    return [...this.#held.values()]
  }

  /**
   * Takes the lease of an existing session (a new epoch); `undefined` when there is no such
   * session; SESSION_LOCKED (with the holder and its time left) when another owner holds it.
   */
  async acquire(session: string, retried = false): Promise<Lease | undefined> {
    const sql = this.#db.leaseSql
    let epoch: string | undefined
    try {
      epoch = (await this.#db.query<{ epoch: string }>(sql.acquire, [session, this.#owner, this.#ttlMs])).rows[0]?.epoch
    } catch (error) {
      // The session was removed while this statement waited for its lease row (removal.ts): the
      // new lease row's foreign key finds no session. As for a session that was never there.
      if (sqlState(error) === '23503') return undefined
      throw storeError(this.#db, `take the lease of session "${session}"`, error, { session })
    }
    if (epoch !== undefined) return this.hold({ session, owner: this.#owner, epoch })
    const holder = await this.holder(session)
    if (holder === undefined) return undefined
    // Expired between the two statements: try once more.
    if (holder.expiresInMs <= 0 && !retried) return this.acquire(session, true)
    throw sessionLocked(this.#db.name, session, holder)
  }

  /** Registers a lease taken in another statement (`create`) for renewal. */
  hold(lease: Lease): Lease {
    this.#held.set(lease.session, lease)
    this.#schedule()
    return lease
  }

  /** Who holds a session's lease now, or `undefined` for a session that never had one. */
  async holder(session: string): Promise<LeaseHolder | undefined> {
    try {
      return (await this.#db.query<LeaseHolder>(this.#db.leaseSql.holder, [session])).rows[0]
    } catch (error) {
      throw storeError(this.#db, `read the lease of session "${session}"`, error, { session })
    }
  }

  /**
   * A write found the lease taken over (a fenced batch): reported to `onLost` as the renewal would
   * report it, once, now — not a third of the TTL later, while the session's owner kept taking
   * requests it could never write. When the write could not see who took it (the takeover
   * committed while the batch waited for the lease row: its statement read the row as it was),
   * `named` reads the holder afterwards, as a renewal's report does — two hosts under one owner
   * name lose sessions to each other exactly so, and the host's line says so only once it is named.
   */
  lost(lease: Lease, error: Error): void {
    if (this.#held.get(lease.session) !== lease) return
    this.#held.delete(lease.session)
    const told = (error as { details?: { heldBy?: unknown } }).details?.heldBy !== undefined
    const named = told ? undefined : this.#holders([lease.session]).then((found) => {
      const holder = found.get(lease.session)
      // Still this lease's epoch: nothing took it over that a read can name.
      return holder === undefined || holder.epoch === lease.epoch ? error : this.#takenOver(lease, holder)
    })
    try {
      this.#onLost(lease, error, named)
    } catch {
      // A listener's failure is not the writer's.
    }
  }

  /** Gives up a lease (if it is still this one): another host may take the session at once. */
  async release(lease: Lease): Promise<void> {
    if (this.#held.get(lease.session) === lease) this.#held.delete(lease.session)
    try {
      await this.#db.query(this.#db.leaseSql.release, [lease.session, lease.owner, lease.epoch])
    } catch (error) {
      throw storeError(this.#db, `release the lease of session "${lease.session}"`, error, { session: lease.session })
    }
  }

  /**
   * Renews every held lease now, in one statement; a lease that was taken over is reported to
   * `onLost`. A failed renewal (the database unreachable) is retried at the next tick: the
   * leases run out at expiry if it keeps failing, and the database fences this store's writers.
   */
  renew(): Promise<void> {
    this.#renewing ??= this.#renew().finally(() => (this.#renewing = undefined))
    return this.#renewing
  }

  /** Stops renewing (the leases are released by their writers, or run out). */
  close(): void {
    this.#closed = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#held.clear()
  }

  async #renew(): Promise<void> {
    const leases = this.held()
    if (leases.length === 0) return
    let renewed: Set<string>
    try {
      const { rows } = await this.#db.query<{ session_id: string }>(this.#db.leaseSql.renew, [
        this.#owner, this.#ttlMs, leases.map((l) => l.session), leases.map((l) => l.epoch),
      ])
      renewed = new Set(rows.map((row) => row.session_id))
    } catch {
      return
    }
    const lost = leases.filter((lease) => !renewed.has(lease.session) && this.#held.get(lease.session) === lease)
    if (lost.length === 0) return
    for (const lease of lost) this.#held.delete(lease.session)
    // Reported now: while a report waits, the host keeps running the session's turn (tool side
    // effects included) beside its new owner. Who holds them now is only for the log line: read
    // after, in one statement (a host paused past its TTL loses hundreds together, on a pool of a
    // few connections), and neither the reports nor the next renewal wait for it.
    const holders = this.#holders(lost.map((lease) => lease.session))
    for (const lease of lost) {
      const error = this.#takenOver(lease, undefined)
      const named = holders.then((found) => (found.has(lease.session) ? this.#takenOver(lease, found.get(lease.session)) : error))
      try {
        this.#onLost(lease, error, named)
      } catch {
        // A listener's failure cannot stop the other reports.
      }
    }
  }

  /** Who holds each of `sessions`' leases now, by session; empty when the read fails (the holders stay unnamed). */
  async #holders(sessions: string[]): Promise<Map<string, { owner: string; epoch: string }>> {
    try {
      const { rows } = await this.#db.query<{ session_id: string; owner: string; epoch: string }>(this.#db.leaseSql.holders, [sessions])
      return new Map(rows.map((row) => [row.session_id, row]))
    } catch {
      return new Map()
    }
  }

  /**
   * The error a lease the renewal no longer finds is reported with; naming who holds the session
   * now when `holder` is known, so the operator of the host that lost it learns which host runs it.
   */
  #takenOver(lease: Lease, holder: { owner: string; epoch: string } | undefined): Error {
    if (holder === undefined) return staleWriter(this.#db.name, lease.session, 'its lease was taken over by another owner', { epoch: lease.epoch })
    return staleWriter(this.#db.name, lease.session, `its lease was taken over (epoch ${holder.epoch}, owner "${holder.owner}")`, {
      epoch: lease.epoch, heldBy: holder.owner, heldEpoch: holder.epoch,
    })
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#closed || this.#held.size === 0) return
    const tick = () => {
      this.#timer = undefined
      if (this.#held.size === 0) return
      void this.renew().finally(() => this.#schedule())
    }
    this.#timer = setTimeout(tick, Math.max(100, Math.floor(this.#ttlMs / 3)))
    this.#timer.unref?.()
  }
}
