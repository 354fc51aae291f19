import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { harness, msg } from '../testing/harness.js'
import { sealIdleSessions } from './sealer.js'

// How a sealed session's `events` prints. Node's util.inspect (so
// console.log, `%o`/`%O`, the REPL, a test runner's console) formats a Proxy by its *target*
// without running any trap (showProxy false), and the view's target is an empty array: after
// the idle sweep, `console.log(agent.session.events)` prints `[]`, as if the session had no
// history, where it printed the events before the seal.

describe('a sealed session\'s events, printed', () => {
  it('util.inspect / console.log show the events, not an empty array', async () => {
    const { agent } = await harness({ responses: [{ text: 'the answer' }] })
    agent.followup(msg('the question', 'q1'))
    await agent.whenIdle()
    const printedBefore = inspect(agent.session.events, { depth: 1 })
    expect(printedBefore).toContain('turn/end')

    await sealIdleSessions()

    expect(agent.session.events.length).toBeGreaterThan(0)
    // Before the fix: both print "[]".
    expect(inspect(agent.session.events, { depth: 1 })).toContain('turn/end')
    expect(inspect(agent.session.events)).not.toBe('[]')
    await agent.close()
  })
})
