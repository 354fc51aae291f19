/**
 * The browser credentials the host keeps in memory: login cookies, EventSource tickets, and the
 * limiter on login attempts. Each table is bounded, and expired entries are pruned as it is used,
 * so a client that logs in (or tries to) again and again cannot grow the host's memory.
 */

/** Login cookies: value → expiry. At most `max`; the oldest login goes first when full. */
export class LoginTable {
  readonly #expiry = new Map<string, number>()
  constructor(readonly ttlMs: number, readonly max: number, readonly now: () => number = Date.now) {}

  get size(): number {
    return this.#expiry.size
  }

  add(id: string): number {
    this.#prune()
    // Logins last equally long, so insertion order is expiry order: the first is the oldest.
    while (this.#expiry.size >= this.max) this.#expiry.delete(this.#expiry.keys().next().value!)
    const expires = this.now() + this.ttlMs
    this.#expiry.set(id, expires)
    return expires
  }

  valid(id: string | undefined): boolean {
    if (id === undefined) return false
    const expires = this.#expiry.get(id)
    if (expires === undefined) return false
    if (expires < this.now()) {
      this.#expiry.delete(id)
      return false
    }
    return true
  }

  delete(id: string): void {
    this.#expiry.delete(id)
  }

  #prune(): void {
    const now = this.now()
    for (const [id, expires] of this.#expiry) {
      if (expires >= now) break
      this.#expiry.delete(id)
    }
  }
}

/**
 * EventSource tickets: each opens one stream, once — the exact path it was issued for (which
 * names the session), within its lifetime. A leaked ticket (in a log of URLs) is spent or stale.
 */
export class TicketTable {
  readonly #tickets = new Map<string, { path: string; expires: number }>()
  constructor(readonly ttlMs: number, readonly max: number, readonly now: () => number = Date.now) {}

  get size(): number {
    return this.#tickets.size
  }

  add(ticket: string, path: string): number {
    const now = this.now()
    for (const [key, entry] of this.#tickets) {
      if (entry.expires >= now) break
      this.#tickets.delete(key)
    }
    while (this.#tickets.size >= this.max) this.#tickets.delete(this.#tickets.keys().next().value!)
    const expires = now + this.ttlMs
    this.#tickets.set(ticket, { path, expires })
    return expires
  }

  /** True once for a live ticket issued for `path`; the ticket is spent by any attempt. */
  redeem(ticket: string | undefined, path: string): boolean {
    if (ticket === undefined) return false
    const entry = this.#tickets.get(ticket)
    if (entry === undefined) return false
    this.#tickets.delete(ticket)
    return entry.path === path && entry.expires >= this.now()
  }
}

/** Fixed-window attempt counting per client: `limit` attempts per `windowMs`, for at most `max` clients. */
export class AttemptLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>()
  constructor(readonly limit: number, readonly windowMs: number, readonly max: number, readonly now: () => number = Date.now) {}

  get size(): number {
    return this.#windows.size
  }

  /** Counts an attempt; answers the seconds to wait when over the limit, else undefined. */
  attempt(client: string): number | undefined {
    const now = this.now()
    let window = this.#windows.get(client)
    if (window === undefined || window.resetAt <= now) {
      if (window !== undefined) this.#windows.delete(client)
      for (const [key, w] of this.#windows) {
        if (w.resetAt > now) break
        this.#windows.delete(key)
      }
      while (this.#windows.size >= this.max) this.#windows.delete(this.#windows.keys().next().value!)
      window = { count: 0, resetAt: now + this.windowMs }
      this.#windows.set(client, window)
    }
    window.count++
    return window.count > this.limit ? Math.max(1, Math.ceil((window.resetAt - now) / 1000)) : undefined
  }
}
