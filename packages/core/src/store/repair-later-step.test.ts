// Recovery of a turn a crash left open in a later step (seed 000, "turn/start 和 turn/end 不对称":
// close the turn, put back what was claimed and never processed, never replay a completed step;
// SPEC §8). The first step's claim is covered in repair.test.ts; here a steer claimed by step 2.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { definePlugin } from '../plugin.js'
import { messageText } from '../session/messages.js'
import { gate, msg, timeline } from '../testing/harness.js'
import { tool } from '../testing/tools.js'
import { memoryStore } from './memory.js'

describe('a crash during the pre-step of step 2', () => {
  it('puts the steer step 2 claimed back at the head of next-step, keeps step 1 and its tool result, and the tool does not run again', async () => {
    const store = memoryStore()
    let runs = 0
    const toolRunning = gate()
    const toolDone = gate()
    const lookup = tool('lookup', async () => {
      runs++
      toolRunning.open()
      await toolDone.promise
      return 'found'
    })
    const stepTwoClaimed = gate()
    // Holds step 2's pre-step for ever: the claim is in the log, nothing of step 2 is.
    const holdStepTwo = definePlugin({
      name: 'hold-step-2',
      setup({ hooks }) {
        hooks.preStep.tapPromise('hold', async (decision, { step }) => {
          if (step === 1) return decision
          stepTwoClaimed.open()
          return new Promise<never>(() => {})
        })
      },
    })
    const dying = await createAgent({
      model: scripted({ responses: [{ toolCalls: [{ name: 'lookup', args: {} }] }] }),
      tools: [lookup], plugins: [holdStepTwo], store, sessionId: 'crash',
    })
    dying.followup(msg('find it'))
    await toolRunning.promise
    dying.steer(msg('only the newest', 'steer'))
    toolDone.open()
    await stepTwoClaimed.promise
    // `dying` is abandoned here, as a killed process would be (the memory store has every append).

    const agent = await createAgent({ model: scripted({ responses: [{ text: 'the newest one' }] }), tools: [lookup], store, sessionId: 'crash' })
    expect(agent.recovery).toMatchObject({ turn: 1, requeued: ['steer'], notStarted: [], outcomeUnknown: [] })
    expect(agent.inbox.nextStep.map((m) => m.id)).toEqual(['steer'])
    expect(timeline(agent).split('\n').slice(-5)).toMatchInlineSnapshot(`
      [
        "tool/result lookup "found"",
        "step/end 1.1 tool-calls",
        "splice next-step @0 -1",
        "splice next-step @0 +["only the newest"]",
        "turn/end 1 interrupted",
      ]
    `)
    agent.wake()
    await agent.whenIdle()
    expect(runs).toBe(1)
    expect(agent.surface.messages.map((m) => `${m.role}: ${messageText(m as never)}`)).toEqual([
      'user: find it', 'assistant: ', 'tool: found', 'user: only the newest', 'assistant: the newest one',
    ])
  })
})
