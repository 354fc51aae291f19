import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { harness } from '../testing/harness.js'
import { holdWhen, loadedSession as loaded } from '../testing/sealer-fixtures.js'
import { enableLogPages, sealIdleSessions, sealingCandidates } from './sealer.js'
import { sessionLog } from './session.js'

// What the sweeper (sealer.ts) keeps alive, and how long its timer stays armed: it must not be
// what holds a session nobody references, and with no candidate left it holds no timer.

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

afterEach(() => vi.useRealTimers())

/**
 * An agent (on its own memory store) that ran one turn, so it is a sweep candidate, then started
 * a turn that never ends. Returns only weak references: nothing in the test holds it afterwards.
 */
async function stuckAgent() {
  const hold = { held: false }
  const { agent } = await harness({ responses: [{ text: 'first' }, { text: 'never asked' }], plugins: [holdWhen(hold)] })
  agent.followup('first')
  await agent.whenIdle()
  hold.held = true
  agent.followup('stuck')
  const turnsStarted = () => agent.session.events.filter((event) => event.type === 'turn/start').length
  await vi.waitFor(() => expect(turnsStarted()).toBe(2), { timeout: 30_000 })
  expect(agent.session.last?.type).not.toBe('turn/end')
  expect(agent.status).toBe('running')
  return { agent: new WeakRef(agent), session: new WeakRef(agent.session) }
}

describe('what the sweeper keeps alive', () => {
  it('lets an agent stuck in a turn be collected once nothing else references it', async () => {
    const refs = await stuckAgent()
    // The sweep sees the open turn: the session cannot be sealed before its turn/end, which
    // would make it a candidate again, so it leaves the candidates.
    await sealIdleSessions()
    expect(sealingCandidates()).toBe(0)
    // Booleans only: a failed expect's error keeps its actual value, which would keep the session.
    // gc() first in each check: a deref keeps its target alive until the end of that job.
    await vi.waitFor(
      () => {
        gc()
        expect(refs.session.deref() === undefined).toBe(true)
        expect(refs.agent.deref() === undefined).toBe(true)
      },
      { timeout: 10_000, interval: 20 },
    )
  })

  it('a closed session leaves the candidates at once, and the last one out clears the timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const first = loaded('first')
    const second = loaded('second')
    enableLogPages(first, { idleMs: 60_000 }, { status: 'idle' })
    enableLogPages(second, { idleMs: 60_000 }, { status: 'idle' })
    expect(sealingCandidates()).toBe(2)
    expect(vi.getTimerCount()).toBe(1)
    void first.close()
    expect(sealingCandidates()).toBe(1)
    expect(vi.getTimerCount()).toBe(1)
    void second.close()
    expect(sealingCandidates()).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
    // Nothing was sealed, and the sweeper arms again for the next candidate.
    expect(sessionLog(first).pages).toEqual([])
    const third = loaded('third')
    enableLogPages(third, { idleMs: 60_000 }, { status: 'idle' })
    expect(vi.getTimerCount()).toBe(1)
    void third.close()
    expect(vi.getTimerCount()).toBe(0)
  })

  it('a sweep that leaves no candidate clears the timer armed before it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const session = loaded('sealed-now')
    enableLogPages(session, { idleMs: 60_000, pageEvents: 2 }, { status: 'idle' })
    expect(vi.getTimerCount()).toBe(1)
    expect(await sealIdleSessions()).toBe(1)
    expect(sessionLog(session).pages.length).toBeGreaterThan(0)
    expect(sealingCandidates()).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('arms an unref\'d timer: the sweeper never keeps the process alive', async () => {
    await sealIdleSessions() // no candidate left from another test: the next one arms the timer
    const armed = vi.spyOn(globalThis, 'setTimeout')
    const session = loaded('unref')
    enableLogPages(session, { idleMs: 60_000 }, { status: 'idle' })
    const timers = armed.mock.results.map((result) => result.value as NodeJS.Timeout)
    armed.mockRestore()
    expect(timers).toHaveLength(1)
    expect(timers[0]!.hasRef()).toBe(false)
    await session.close()
  })
})
