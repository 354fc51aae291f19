import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from './events.js'
import { enableLogPages } from './sealer.js'
import { Session, sessionLog } from './session.js'

// The sweeper's one module-level timer and fake timers. `arm()` once
// schedules only while `timer === undefined`, and `timer` is cleared only when that timeout runs.
// A timer armed while a test had `vi.useFakeTimers()` on (an agent's turn ended, or one loaded a
// history) is dropped by `vi.useRealTimers()` without running: `timer` stays set forever, so the
// sweeper never runs again in that process (that test file's worker, a user's test suite): no
// session is sealed by the timer any more, and every candidate stays in the strong Set.

afterEach(() => vi.useRealTimers())

/** A session loaded with two ended turns: a sweep candidate from the start. */
function loaded(id: string): Session {
  const types = ['turn/start', 'turn/end', 'turn/start', 'turn/end']
  const events = types.map((type, seq) => Object.freeze({ seq, time: seq, type, data: Object.freeze({ turn: 1 + (seq >> 1) }) }) as SessionEvent)
  return new Session({ id, version: 1, createdAt: 0 }, events)
}

describe('the sweeper after fake timers', () => {
  it('still seals on its own once real timers are back', async () => {
    vi.useFakeTimers()
    const first = loaded('armed-under-fake-timers')
    enableLogPages(first, { idleMs: 20 }, { status: 'idle' }) // arms the sweeper's timer: a fake one
    vi.useRealTimers() // the fake timeout is gone, never run

    const second = loaded('later')
    enableLogPages(second, { idleMs: 20 }, { status: 'idle' })
    // Before the fix: nothing re-arms the sweeper, so neither session is ever sealed.
    await vi.waitFor(() => expect(sessionLog(second).pages.length).toBeGreaterThan(0), { timeout: 5_000, interval: 10 })
  })
})
