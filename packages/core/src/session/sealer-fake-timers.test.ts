import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadedSession as loaded } from '../testing/sealer-fixtures.js'
import { enableLogPages } from './sealer.js'
import { sessionLog } from './session.js'

// The sweeper's one module-level timer and fake timers. `arm()` once
// schedules only while `timer === undefined`, and `timer` is cleared only when that timeout runs
// (or when the last candidate leaves).
// A timer armed while a test had `vi.useFakeTimers()` on (an agent's turn ended, or one loaded a
// history) is dropped by `vi.useRealTimers()` without running: `timer` stays set forever, so the
// sweeper never runs again in that process (that test file's worker, a user's test suite): no
// session is sealed by the timer any more, and every candidate stays in the strong Set.

afterEach(() => vi.useRealTimers())

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
