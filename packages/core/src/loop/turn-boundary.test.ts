// Input that lands at a turn boundary (seed 003 §4: a turn's first claim takes the next-step batch
// first, then the next-turn head; seed 000 "turn 边界的状态机": running → running while the inbox
// holds input; seed 003 §8: a pre-step reject ends the turn blocked, and the claim was its commit
// point — only what it claimed is consumed).
import { describe, expect, it } from 'vitest'
import type { PreStepDecision } from '../hooks.js'
import { messageText } from '../session/messages.js'
import { statuses, turnBoundaries } from '../testing/agent-probes.js'
import { gate, harness, pausingTap } from '../testing/harness.js'
import { tool } from '../testing/tools.js'

const delivered = (events: readonly { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === 'user/message').map((e) => messageText(e.data as never))

describe('at a turn boundary', () => {
  it('an inject from a turn/end observer, with a follow-up queued: the next turn\'s first step has the inject first, then the follow-up, and no turn of its own', async () => {
    const { agent, timeline } = await harness()
    let injected = false
    agent.session.subscribe((event) => {
      if (event.type === 'turn/end' && !injected) {
        injected = true
        agent.inject('context after turn 1')
      }
    })
    const seen = statuses(agent)
    agent.followup('one')
    agent.followup('two')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-11)).toMatchInlineSnapshot(`
      [
        "turn/end 1 completed",
        "splice next-step @0 +["context after turn 1"]",
        "turn/start 2",
        "splice next-step @0 -1",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "context after turn 1"",
        "user/message "two"",
        "assistant/message "echo: two"",
        "step/end 2.1 stop",
        "turn/end 2 completed",
      ]
    `)
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    expect(seen).toEqual(['running', 'idle'])
  })

  it('a pre-step reject consumes only what its step claimed: a steer sent while the pre-step ran opens the next turn at once', async () => {
    const gatekeeper = pausingTap<PreStepDecision>()
    const { agent, timeline } = await harness()
    let first = true
    agent.hooks.preStep.tapPromise('gatekeeper', async (decision, context) => {
      if (!first) return decision
      first = false
      await gatekeeper.tap(decision)
      return { kind: 'reject', by: 'gatekeeper', metadata: { turn: context.turn } }
    })
    const seen = statuses(agent)
    agent.followup('refused')
    await gatekeeper.entered
    agent.steer('sent during the pre-step')
    gatekeeper.release()
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["refused"]
      turn/start 1
      splice next-turn @0 -1
      splice next-step @0 +["sent during the pre-step"]
      rejected 1 by=gatekeeper {"turn":1}
      turn/end 1 blocked by=gatekeeper {"turn":1}
      turn/start 2
      splice next-step @0 -1
      step/start 2.1
      user/message "sent during the pre-step"
      assistant/message "echo: sent during the pre-step"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
    expect(delivered(agent.session.events)).toEqual(['sent during the pre-step'])
    expect(seen).toEqual(['running', 'idle'])
  })
})

describe('an abort during tool execution', () => {
  it('leaves the context the aborted tool added in next-step, parked (no turn of its own); the next turn\'s first step has it before the follow-up (seed 000, "abort 后的 next-step 消息")', async () => {
    const started = gate()
    const careful = tool('careful', async (_args, { signal }) => {
      started.open()
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
      return { content: 'stopped early', additionalContexts: ['partial listing: a, b'] }
    })
    const { agent, timeline } = await harness({ tools: [careful], responses: [{ toolCalls: [{ name: 'careful' }] }] })
    agent.followup('list')
    await started.promise
    agent.abort('stop')
    await agent.whenIdle()
    expect(turnBoundaries(agent)).toEqual(['start 1', 'end 1'])
    expect(agent.inbox.nextStep.map((m) => messageText(m))).toEqual(['partial listing: a, b'])
    agent.followup('go on')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-9, -3)).toMatchInlineSnapshot(`
      [
        "turn/start 2",
        "splice next-step @0 -1",
        "splice next-turn @0 -1",
        "step/start 2.1",
        "user/message "partial listing: a, b" (tool)",
        "user/message "go on"",
      ]
    `)
  })
})
