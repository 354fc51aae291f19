/** The pause after a session's first failed round of carrying out its mail; doubled after each next one. */
export const DRAIN_BACKOFF_MIN_MS = 25
/** The longest pause between two failed rounds of one session. */
export const DRAIN_BACKOFF_MAX_MS = 5000
/** A failing streak is logged at its first round, then once every this many rounds (about every 100 s at the longest pause). */
export const DRAIN_LOG_EVERY = 20
/**
 * How long after its pause ended a streak no failed round added to is forgotten. Far longer than
 * the longest pause, so a store that stays down keeps one streak (the wake-ups and the watcher's
 * poll run a round well within it); a session deleted, or with no more mail, runs no round here
 * again, and what its last failed round left would otherwise stay for the host's lifetime — and
 * a later outage of it start at the longest pause, unlogged until its 20th round.
 */
export const DRAIN_STREAK_FORGET_MS = 60_000

/** A session's failing streak: failed rounds in a row, and when the pause after the last one ends. */
interface Streak { rounds: number; pauseEnds: number }

/**
 * Failing streaks of the rounds that carry out a session's mail (a store that is down). Without
 * it, wake-ups (NOTIFYs) that kept coming made the owner run round after round, each failing at
 * once and logged: a busy loop and a flood of log lines for as long as the store was down. A
 * failed round is followed by a pause, doubling from {@link DRAIN_BACKOFF_MIN_MS} to
 * {@link DRAIN_BACKOFF_MAX_MS}, and a round that succeeds ends the streak; the streak is logged at
 * its start, every {@link DRAIN_LOG_EVERY} rounds, and once more when it ends. A streak no failed
 * round added to for {@link DRAIN_STREAK_FORGET_MS} after its pause is over: the next failure
 * starts a new one, and {@link forgetStale} drops it.
 */
export class DrainBackoff {
  /** Failing streaks, by session (only sessions whose last round failed). */
  readonly #streaks = new Map<string, Streak>()

  /** Ends of the pauses under way ({@link pause}), for {@link endPauses}. */
  readonly #pauses = new Set<() => void>()

  /** `now`: the clock the pauses are measured on (a test's own). */
  constructor(readonly now: () => number = Date.now) {}

  /** Waits `ms`, or until {@link endPauses} (the host closes). */
  async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const end = (): void => {
        clearTimeout(timer)
        this.#pauses.delete(end)
        resolve()
      }
      const timer = setTimeout(end, ms)
      this.#pauses.add(end)
    })
  }

  /** Ends every pause under way at once. */
  endPauses(): void {
    for (const end of [...this.#pauses]) end()
  }

  /** Records a failed round of `session`: the pause before its next, and whether to log this one. */
  failed(session: string): { streak: number; pauseMs: number; log: boolean } {
    const now = this.now()
    const last = this.#streaks.get(session)
    const streak = (last === undefined || this.#stale(last, now) ? 0 : last.rounds) + 1
    const pauseMs = Math.min(DRAIN_BACKOFF_MAX_MS, DRAIN_BACKOFF_MIN_MS * 2 ** Math.min(streak - 1, 30))
    this.#streaks.set(session, { rounds: streak, pauseEnds: now + pauseMs })
    return { streak, pauseMs, log: streak === 1 || streak % DRAIN_LOG_EVERY === 0 }
  }

  /**
   * Records a round of `session` that succeeded: the failing streak it ended (0: none). Stale or
   * not: a round that ran long after its pause still ends the streak it was part of.
   */
  succeeded(session: string): number {
    const streak = this.#streaks.get(session)?.rounds ?? 0
    this.#streaks.delete(session)
    return streak
  }

  /**
   * Drops the streaks no failed round added to for {@link DRAIN_STREAK_FORGET_MS} after their
   * pause, but those `running` says have a round under way (its end is still logged).
   */
  forgetStale(running: (session: string) => boolean = () => false): void {
    const now = this.now()
    for (const [session, streak] of this.#streaks) if (this.#stale(streak, now) && !running(session)) this.#streaks.delete(session)
  }

  /** How many sessions have a failing streak kept. */
  get size(): number {
    return this.#streaks.size
  }

  #stale(streak: Streak, now: number): boolean {
    return now - streak.pauseEnds > DRAIN_STREAK_FORGET_MS
  }
}
