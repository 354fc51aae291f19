// An aborted turn claims nothing more (seed 000, "abort 后的 next-step 消息": input queued before
// the abort and not yet claimed stays in its queue, and the next turn's first claim takes it; seed
// 003 §12: input queued before an abort is kept, parked). An abort that lands between two steps —
// from a session observer, such as a budget plugin watching each answer — used to be followed by
// the next step's claim, which took the waiting input into a turn that then ended aborted: it
// never reached a step and was never put back.
import { describe, expect, it } from 'vitest'
import { is } from '../testing/agent-probes.js'
import { harness } from '../testing/harness.js'

describe('an abort that lands between steps', () => {
  it('from an assistant/message observer: a steer that arrived during the step stays in next-step, unclaimed, and rides the next turn', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'abc', chunkSize: 1, delayMs: 1 }] })
    let steered = false
    agent.session.subscribe((event) => {
      if (event.type === 'assistant/chunk' && !steered) {
        steered = true
        agent.steer('late steer')
      }
      // A budget plugin: the answer is logged, the turn is over budget.
      if (event.type === 'assistant/message') agent.abort('budget')
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      splice next-step @0 +["late steer"]
      assistant/message "abc"
      step/end 1.1 stop
      turn/end 1 aborted (budget)"
    `)
    expect(agent.inbox.nextStep.map((m) => m.content)).toEqual([[{ type: 'text', text: 'late steer' }]])
    agent.followup('next')
    await agent.whenIdle()
    const delivered = agent.session.events.filter(is('user/message')).map((e) => (e.data as { content: { text: string }[] }).content[0]!.text)
    expect(delivered).toEqual(['go', 'late steer', 'next'])
  })

  it('from a turn/start observer: the turn claims nothing and the follow-up stays parked for the next wake', async () => {
    const { agent, adapter, timeline } = await harness()
    const off = agent.session.subscribe((event) => {
      if (event.type === 'turn/start') agent.abort('stop')
    })
    const message = agent.followup('go')
    await agent.whenIdle()
    off()
    expect(adapter.requests).toBe(0)
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      turn/end 1 aborted (stop)"
    `)
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual([message.id])
    agent.wake()
    await agent.whenIdle()
    expect(agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)).toEqual([message.id])
  })
})
