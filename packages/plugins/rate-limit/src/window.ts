/** One limit: at most `limit` events in any window of `windowMs`, at most `burst` back to back. */
export interface Limit {
  limit: number
  windowMs: number
  /** At most `limit`; a larger burst would add nothing to the window. */
  burst: number
}

/**
 * How long, from `now`, until one more event fits under `limit` — `0` when it fits now.
 *
 * `times` are the times of the events counted so far, ascending; those at or before
 * `now - windowMs` are ignored. Two conditions must both hold for an event at time `t`:
 *
 * 1. **Window**: fewer than `limit` events in `(t - windowMs, t]`.
 * 2. **Burst**: for every event `e` of the window, the events from `e` to `t` (the new one
 *    included) number at most `burst + (t - e) / interval`, where `interval = windowMs / limit`:
 *    a bucket of `burst` tokens that regains one token per interval.
 *
 * With `burst >= limit` the second condition follows from the first (a plain sliding window).
 * Both only look at the last `windowMs`, which is why the state can be rebuilt from the tail of
 * the session log.
 *
 * @example
 * waitTime([0, 0, 0], 0, { limit: 60, windowMs: 60_000, burst: 3 }) // 1000: the next token
 * waitTime([0], 10, { limit: 1, windowMs: 60_000, burst: 1 })      // 59990: the window
 */
export function waitTime(times: readonly number[], now: number, { limit, windowMs, burst }: Limit): number {
  const horizon = now - windowMs
  let first = 0
  while (first < times.length && times[first]! <= horizon) first++
  const count = times.length - first
  let wait = 0
  // 1. The window: the (count - limit + 1)-th oldest event must leave it.
  if (count >= limit) wait = Math.max(wait, times[first + count - limit]! + windowMs - now)
  // 2. The burst: each event of the window bounds how soon the bucket holds a token again.
  if (burst < limit) {
    const interval = windowMs / limit
    for (let i = first; i < times.length; i++) {
      const since = times.length - i + 1 // events from times[i] to the new one, inclusive
      wait = Math.max(wait, times[i]! + (since - burst) * interval - now)
    }
  }
  return Math.max(0, Math.ceil(wait))
}

/** Drops the times at or before `now - windowMs` from the front of an ascending list, in place. */
export function prune(times: number[], now: number, windowMs: number): void {
  let drop = 0
  while (drop < times.length && times[drop]! <= now - windowMs) drop++
  if (drop > 0) times.splice(0, drop)
}
