// A failing streak of a session's mail rounds is forgotten once no failed round has added to it
// for a while (DRAIN_STREAK_FORGET_MS after its pause): a session deleted, or with no more mail,
// runs no round on this host again, and its streak stayed for the host's lifetime — a slow leak,
// and a later outage of that session then started at the longest pause and was not logged until
// its 20th round. Measured on the test's own clock.
import { describe, expect, it } from 'vitest'
import { DRAIN_BACKOFF_MAX_MS, DRAIN_BACKOFF_MIN_MS, DRAIN_LOG_EVERY, DRAIN_STREAK_FORGET_MS, DrainBackoff } from '../src/cluster/drain-backoff.js'

/** A backoff on a clock the test moves; `fail(n)` records n failed rounds, each after its pause. */
function clocked() {
  let now = 1_000_000
  const backoff = new DrainBackoff(() => now)
  const fail = (session: string, rounds: number) => {
    let last = backoff.failed(session)
    for (let i = 1; i < rounds; i++) {
      now += last.pauseMs
      last = backoff.failed(session)
    }
    return last
  }
  return { backoff, fail, wait: (ms: number) => (now += ms) }
}

describe('DrainBackoff — streaks no failed round adds to', () => {
  it('a later outage starts a new streak: the shortest pause, logged at its first round', () => {
    const { fail, wait } = clocked()
    const long = fail('s', DRAIN_LOG_EVERY + 3)
    expect(long).toEqual({ streak: DRAIN_LOG_EVERY + 3, pauseMs: DRAIN_BACKOFF_MAX_MS, log: false })
    wait(long.pauseMs + DRAIN_STREAK_FORGET_MS + 1)
    expect(fail('s', 1)).toEqual({ streak: 1, pauseMs: DRAIN_BACKOFF_MIN_MS, log: true })
  })

  it('a streak a failed round adds to within the while goes on, however long its rounds are apart within it', () => {
    const { fail, wait } = clocked()
    const last = fail('s', 8)
    wait(last.pauseMs + DRAIN_STREAK_FORGET_MS)
    expect(fail('s', 1)).toMatchObject({ streak: 9, pauseMs: DRAIN_BACKOFF_MAX_MS })
  })

  it('forgetStale drops the streaks of sessions that run no more rounds, but those with a round under way', () => {
    const { backoff, fail, wait } = clocked()
    for (let i = 0; i < 100; i++) fail(`gone-${i}`, 3)
    fail('running', 12)
    wait(DRAIN_BACKOFF_MAX_MS + DRAIN_STREAK_FORGET_MS + 1)
    fail('fresh', 1)
    expect(backoff.size).toBe(102)
    backoff.forgetStale((session) => session === 'running')
    expect(backoff.size).toBe(2)
    // The round under way ends its streak, which it was part of: its end is logged with the count.
    expect(backoff.succeeded('running')).toBe(12)
    expect(backoff.succeeded('fresh')).toBe(1)
    expect(backoff.size).toBe(0)
  })

  it('a streak still in its pause is kept', () => {
    const { backoff, fail, wait } = clocked()
    fail('s', 2)
    wait(DRAIN_BACKOFF_MIN_MS)
    backoff.forgetStale()
    expect(backoff.size).toBe(1)
    expect(backoff.succeeded('s')).toBe(2)
  })
})
