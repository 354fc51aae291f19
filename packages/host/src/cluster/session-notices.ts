/**
 * The store's NOTIFYs of sessions made and removed, told to the host stream in the order they
 * came — and not when what this host told its streams itself is newer.
 *
 * A cluster host tells its own creates and removals where it makes them (the routes), at once;
 * their NOTIFYs come back later, on the LISTEN connection, in commit order with every other
 * host's. A removal heard after this host made the id again is stale: told, it would end the
 * new session's streams, drop it from every list and forget what the cluster keeps for it
 * (a `DELETE` then a `POST` of the same id, or another host's removal heard late). Such a removal
 * committed before that create, so it comes before the create's own NOTIFY: while a create made
 * here has not come back, a removal of its id is stale — when the store has the session now
 * (a create's NOTIFY heard before the route told it, or lost while the connection was down, would
 * otherwise keep a real removal from ever being told).
 *
 * One NOTIFY at a time: a removal that asks the store is told before the creation heard after it
 * (a host that hears a removal and then a creation of the id ends with the session listed).
 */
export class SessionNotices {
  /** Sessions made here whose create's NOTIFY has not come back, with how many such creates. */
  readonly #madeHere = new Map<string, number>()
  #queue: Promise<void> = Promise.resolve()

  constructor(
    /** Whether the store has the session now. */
    readonly stored: (id: string) => Promise<boolean>,
    readonly tell: { created(id: string): void; removed(id: string): void },
  ) {}

  /** This host made session `id` and told its streams. */
  madeHere(id: string): void {
    this.#madeHere.delete(id)
    this.#madeHere.set(id, (this.#madeHere.get(id) ?? 0) + 1)
    // Bounded for a LISTEN connection that stays down (no create comes back): a forgotten id's
    // stale removal is told, as a removal heard after the create's NOTIFY is.
    if (this.#madeHere.size > MADE_HERE_KEPT) this.#madeHere.delete(this.#madeHere.keys().next().value!)
  }

  /** A NOTIFY: session `id` was made — by this host (`own`: told already) or another. */
  created(id: string, own: boolean): void {
    this.#next(() => {
      if (!own) return this.tell.created(id)
      const pending = this.#madeHere.get(id) ?? 0
      if (pending <= 1) this.#madeHere.delete(id)
      else this.#madeHere.set(id, pending - 1)
    })
  }

  /** A NOTIFY: session `id` was removed (on any host, this one too). */
  removed(id: string): void {
    this.#next(async () => {
      const pending = this.#madeHere.get(id) ?? 0
      // The store unreachable: the NOTIFYs' order alone says it is stale.
      if (pending > 0 && (await this.stored(id).catch(() => true))) return
      // Not stored: what was made here before the check was removed since (creates made during it stay counted).
      const now = (this.#madeHere.get(id) ?? 0) - pending
      if (now > 0) this.#madeHere.set(id, now)
      else this.#madeHere.delete(id)
      this.tell.removed(id)
    })
  }

  #next(handle: () => void | Promise<void>): void {
    this.#queue = this.#queue.then(handle).catch(() => {})
  }
}

/** How many sessions made here the notices keep waiting for their NOTIFY (the oldest forgotten). */
const MADE_HERE_KEPT = 1024
