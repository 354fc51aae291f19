// A wake during maintenance is honoured when it ends (seed 000: "如果是 maintenance：等 maintenance
// 结束后再检查"), and only then: a latch left set after a maintenance task that found nothing to
// run outlived it, and later made a Stop right after a follow-up run the turn anyway (seed 003 §12:
// input queued before an abort is kept, parked — no latch).
import { describe, expect, it } from 'vitest'
import { is } from '../testing/agent-probes.js'
import { harness } from '../testing/harness.js'

describe('the wake latch of a maintenance task', () => {
  it('ends with the task when nothing is left to run: a Stop right after a later follow-up still parks it', async () => {
    const { agent, adapter } = await harness()
    await agent.runMaintenance(() => {
      // Steered during a compaction, then withdrawn (the host's queue "remove") before it ended.
      const steered = agent.steer('never mind')
      agent.inbox.remove(steered.id)
    })
    await agent.whenIdle()
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)

    const message = agent.followup('go')
    agent.abort('stop')
    await agent.whenIdle()
    expect(adapter.requests).toBe(0)
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual([message.id])
  })

  it('is spent by the turn it starts: a Stop as that turn is announced parks the steer', async () => {
    const { agent, adapter } = await harness()
    let steered: { id: string } | undefined
    // Aborts as the driver the maintenance's end starts announces itself, before its first turn opens.
    agent.hooks.status.tap('stop-on-running', (status) => {
      if (status === 'running' && steered !== undefined) agent.abort('stop')
    })
    await agent.runMaintenance(() => {
      steered = agent.steer('go')
    })
    await agent.whenIdle()
    expect(adapter.requests).toBe(0)
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)
    expect(agent.inbox.nextStep.map((m) => m.id)).toEqual([steered!.id])
  })
})
