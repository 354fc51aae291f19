/** The pause after a session's first failed round of carrying out its mail; doubled after each next one. */
export const DRAIN_BACKOFF_MIN_MS = 25
/** The longest pause between two failed rounds of one session. */
export const DRAIN_BACKOFF_MAX_MS = 5000
/** A failing streak is logged at its first round, then once every this many rounds (about every 100 s at the longest pause). */
export const DRAIN_LOG_EVERY = 20

/**
 * Failing streaks of the rounds that carry out a session's mail (a store that is down). Without
 * it, wake-ups (NOTIFYs) that kept coming made the owner run round after round, each failing at
 * once and logged: a busy loop and a flood of log lines for as long as the store was down. A
 * failed round is followed by a pause, doubling from {@link DRAIN_BACKOFF_MIN_MS} to
 * {@link DRAIN_BACKOFF_MAX_MS}, and a round that succeeds ends the streak; the streak is logged at
 * its start, every {@link DRAIN_LOG_EVERY} rounds, and once more when it ends.
 */
export class DrainBackoff {
  /** Failed rounds in a row, by session (only sessions whose last round failed). */
  readonly #streaks = new Map<string, number>()

  /** Records a failed round of `session`: the pause before its next, and whether to log this one. */
  failed(session: string): { streak: number; pauseMs: number; log: boolean } {
    const streak = (this.#streaks.get(session) ?? 0) + 1
    this.#streaks.set(session, streak)
    const pauseMs = Math.min(DRAIN_BACKOFF_MAX_MS, DRAIN_BACKOFF_MIN_MS * 2 ** Math.min(streak - 1, 30))
    return { streak, pauseMs, log: streak === 1 || streak % DRAIN_LOG_EVERY === 0 }
  }

  /** Records a round of `session` that succeeded: the failing streak it ended (0: none). */
  succeeded(session: string): number {
    const streak = this.#streaks.get(session) ?? 0
    this.#streaks.delete(session)
    return streak
  }
}
