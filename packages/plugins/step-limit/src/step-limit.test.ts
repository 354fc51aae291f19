import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { createUserMessage, definePlugin, deriveUserMessage, formatTimeline, messageText, type SessionEvent, type Tool } from '@bosun/core'
import { expectRejected, testPlugin, type PluginKit } from '@bosun/testkit'
import stepLimit from './index.js'

const noop: Tool = { name: 'noop', description: 'does nothing', parameters: { type: 'object' }, execute: () => 'done' }
const callNoop: ScriptedResponse = { toolCalls: [{ name: 'noop' }] }
/** A model stuck in a loop: `n` answers that each call a tool again. */
const toolCalls = (n: number, response: ScriptedResponse = callNoop) => Array.from({ length: n }, () => response)
const stepStarts = (events: readonly SessionEvent[]) => events.filter((event) => event.type === 'step/start').length

describe('step-limit', () => {
  it('lets a turn run maxSteps steps and refuses step maxSteps + 1: the turn ends blocked', async () => {
    const kit = await testPlugin(stepLimit, { maxSteps: 3 }, { tools: [noop], responses: toolCalls(10) })
    const turn = await kit.send('go')
    expectRejected(turn, { by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 3, step: 4 } })
    expect(turn.end).toEqual({ kind: 'blocked', by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 3, step: 4 } })
    expect(kit.model.requests).toBe(3)
    expect(stepStarts(turn.events)).toBe(3)
    // The third step's tool result is logged before the refusal: the next turn builds on it.
    expect(formatTimeline(turn.events.slice(-4), { requests: false })).toMatchInlineSnapshot(`
      "tool/result noop "done"
      step/end 1.3 tool-calls
      rejected 1 by=step-limit {"reason":"max-steps","maxSteps":3,"step":4}
      turn/end 1 blocked by=step-limit {"reason":"max-steps","maxSteps":3,"step":4}"
    `)
    await kit.close()
  })

  it('does not refuse before: a turn of exactly maxSteps steps completes', async () => {
    const kit = await testPlugin(stepLimit, { maxSteps: 3 }, { tools: [noop], responses: [...toolCalls(2), { text: 'finished' }] })
    const turn = await kit.send('go')
    expect(turn.rejected).toBeUndefined()
    expect(turn.end).toEqual({ kind: 'completed' })
    expect(turn.reply).toBe('finished')
    expect(stepStarts(turn.events)).toBe(3)
    await kit.close()
  })

  it('counts each turn from one: the next turn gets maxSteps steps again', async () => {
    const kit = await testPlugin(stepLimit, { maxSteps: 2 }, { tools: [noop], responses: toolCalls(4) })
    expectRejected(await kit.send('one'), { by: 'step-limit', metadata: { step: 3 } })
    const second = await kit.send('two')
    expectRejected(second, { by: 'step-limit', metadata: { step: 3 } })
    expect(stepStarts(second.events)).toBe(2)
    await kit.close()
  })

  it('defaults to 25 steps', async () => {
    const kit = await testPlugin(stepLimit, undefined, { tools: [noop], responses: toolCalls(30) })
    expectRejected(await kit.send('go'), { by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 25, step: 26 } })
    expect(kit.model.requests).toBe(25)
    await kit.close()
  })

  it('stops a model that keeps calling a tool that does not exist', async () => {
    const kit = await testPlugin(stepLimit, { maxSteps: 4 }, { responses: toolCalls(10, { toolCalls: [{ name: 'no_such_tool' }] }) })
    const turn = await kit.send('go')
    expectRejected(turn, { by: 'step-limit', metadata: { maxSteps: 4, step: 5 } })
    expect(turn.events.filter((event) => event.type === 'tool/result').every((event) => (event.data as { isError?: boolean }).isError)).toBe(true)
    await kit.close()
  })

  it('after a blocked turn, the next message runs: the model sees the tool results, then the message', async () => {
    const kit = await testPlugin(stepLimit, { maxSteps: 2 }, { tools: [noop], responses: [...toolCalls(2), { text: 'sorry, I was looping' }] })
    expectRejected(await kit.send('go'), { by: 'step-limit' })
    const next = await kit.send('what happened?')
    expect(next.end).toEqual({ kind: 'completed' })
    expect(next.reply).toBe('sorry, I was looping')
    const request = kit.model.recorded.at(-1)!
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'user'])
    await kit.close()
  })

  it('a message the user injected during the last allowed step is put back, and the next turn runs it', async () => {
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 2 }, {
      tools: [noop],
      responses: [callNoop, (): ScriptedResponse => (kit.inject('also do this'), callNoop), { text: 'done both' }],
    })
    const run = await kit.send('go')
    // Turn 1 refused at step 3 with the inject claimed; put back (logged before the refusal), it
    // opened turn 2 at once, whose only input it was.
    expect(run.turns).toEqual([1, 2])
    expect(run.rejected).toEqual({ by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 2, step: 3 } })
    const types = run.events.map((event) => event.type)
    const refusal = types.indexOf('agent/pre-step/rejected')
    expect(types.slice(0, refusal).lastIndexOf('agent/inbox/spliced')).toBeGreaterThan(types.lastIndexOf('step/end', refusal))
    expect(run.entered).toEqual(['go', 'also do this'])
    expect(run.reply).toContain('done both')
    expect(run.end).toEqual({ kind: 'completed' })
    expect(kit.agent.inbox.nextStep).toHaveLength(0)
    await kit.close()
  })

  it('puts back what an earlier policy rewrote as it was claimed, and leaves what it dropped', async () => {
    // A policy before step-limit that, on a turn's follow-on steps, rewrites "keep"
    // (deriveUserMessage: a new id, derivedFrom the original) and drops "drop".
    const rewrite = definePlugin({
      name: 'rewrite',
      setup({ hooks, name }) {
        hooks.preStep.tap(name, (decision, { step }) => {
          if (decision.kind !== 'enter' || step === 1) return decision
          const messages = decision.messages
            .filter((message) => messageText(message) !== 'drop')
            .map((message) => (messageText(message) === 'keep' ? deriveUserMessage(message, 'KEEP') : message))
          return { kind: 'enter', messages }
        })
      },
    })
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 1 }, {
      plugins: [rewrite],
      tools: [noop],
      responses: [(): ScriptedResponse => (kit.inject('keep'), kit.inject('drop'), callNoop), { text: 'kept' }],
    })
    const run = await kit.send('go')
    expect(run.rejected).toMatchObject({ by: 'step-limit', metadata: { step: 2 } })
    // Turn 2's first step (not rewritten there) entered the original "keep"; "drop" stayed dropped.
    expect(run.turns).toEqual([1, 2])
    expect(run.entered).toEqual(['go', 'keep'])
    expect(run.end).toEqual({ kind: 'completed' })
    await kit.close()
  })

  it('puts back a subagent\'s settlement the refused step claimed: the parent still gets the child\'s answer', async () => {
    // As the subagents plugin delivers a background child's answer while the parent runs (a steer
    // with this id and source, recorded once by `subagent/settled`, never sent again).
    const settlement = createUserMessage('[subagent c1 completed] the answer is 42', {
      id: 'settle:c1:1', source: { kind: 'subagent-settled', childId: 'c1', epoch: 1, delivery: 'steer' },
    })
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 1 }, {
      tools: [noop],
      responses: [(): ScriptedResponse => (kit.agent.steer(settlement), callNoop), { text: 'the child says 42' }],
    })
    const run = await kit.send('go')
    expect(run.rejected).toMatchObject({ by: 'step-limit', metadata: { step: 2 } })
    expect(run.turns).toEqual([1, 2])
    expect(run.entered).toEqual(['go', messageText(settlement)])
    expect(run.reply).toContain('the child says 42')
    await kit.close()
  })

  it('puts back a settlement also in a turn a put-back opened: a child\'s answer, sent once, cannot start a loop', async () => {
    const settlement = createUserMessage('[subagent c1 completed] the answer is 42', {
      id: 'settle:c1:1', source: { kind: 'subagent-settled', childId: 'c1', epoch: 1, delivery: 'steer' },
    })
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 1 }, {
      tools: [noop],
      responses: [
        // Turn 1: the user steers during the last allowed step, refused and put back; it opens turn 2.
        (): ScriptedResponse => (kit.agent.steer('look at c1 too'), callNoop),
        // Turn 2: the child settles during its last allowed step, refused too.
        (): ScriptedResponse => (kit.agent.steer(settlement), callNoop),
        { text: 'the child says 42' },
      ],
    })
    const run = await kit.send('go')
    expect(run.turns).toEqual([1, 2, 3])
    expect(run.entered).toEqual(['go', 'look at c1 too', messageText(settlement)])
    expect(run.reply).toContain('the child says 42')
    await kit.close()
  })

  it('does not put back context a tool added: it would open a turn of its own', async () => {
    const withContext: Tool = { ...noop, execute: () => ({ content: 'done', additionalContexts: ['look again'] }) }
    const kit = await testPlugin(stepLimit, { maxSteps: 1 }, { tools: [withContext], responses: [callNoop] })
    const run = await kit.send('go')
    expect(run.turns).toEqual([1])
    expect(run.end).toMatchObject({ kind: 'blocked', by: 'step-limit' })
    expect(kit.agent.inbox.nextStep).toHaveLength(0)
    expect(kit.agent.status).toBe('idle')
    await kit.close()
  })

  it('does not refuse a round that opens no step: a finished turn whose late input another policy dropped completes', async () => {
    // A policy before step-limit that admits nothing from a follow-on step (it drops the inject).
    const dropLate = definePlugin({
      name: 'drop-late',
      setup({ hooks, name }) {
        hooks.preStep.tap(name, (decision, { step }) => (decision.kind === 'enter' && step > 1 ? { kind: 'enter', messages: [] } : decision))
      },
    })
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 1 }, {
      plugins: [dropLate],
      responses: [(): ScriptedResponse => (kit.inject('late'), { text: 'answered' })],
    })
    const turn = await kit.send('go')
    expect(turn.rejected).toBeUndefined()
    expect(turn.end).toEqual({ kind: 'completed' })
    await kit.close()
  })

  it('does not refuse a round after tools that concluded the turn: a step whose late input another policy dropped', async () => {
    // The tool concludes the turn (`concludesTurn`) but adds context, so the core goes round once
    // more; a policy before step-limit drops that context, and the round opens no step.
    const concluding: Tool = { ...noop, concludesTurn: true, execute: () => ({ content: 'done', additionalContexts: ['look again'] }) }
    const dropLate = definePlugin({
      name: 'drop-late',
      setup({ hooks, name }) {
        hooks.preStep.tap(name, (decision, { step }) => (decision.kind === 'enter' && step > 1 ? { kind: 'enter', messages: [] } : decision))
      },
    })
    const kit = await testPlugin(stepLimit, { maxSteps: 1 }, { plugins: [dropLate], tools: [concluding], responses: [callNoop] })
    const turn = await kit.send('go')
    expect(turn.rejected).toBeUndefined()
    expect(turn.end).toEqual({ kind: 'completed' })
    expect(kit.model.requests).toBe(1)
    await kit.close()
  })

  it('a step whose tool/result hook failed for a call still owes the model an answer: the round after it is refused at maxSteps + 1', async () => {
    // Two concluding calls; a tool/result tap before step-limit's throws for the second, so the core
    // logs an error result (which does not conclude) without step-limit's tap seeing it, and goes on.
    const concluding: Tool = { ...noop, concludesTurn: true }
    const failSecond = definePlugin({
      name: 'fail-second',
      setup({ hooks, name }) {
        hooks.toolResult.tap(name, (result, { call }) => {
          if (call.callId === 'second') throw new Error('the redactor failed')
          return result
        })
      },
    })
    const twoCalls: ScriptedResponse = { toolCalls: [{ name: 'noop', id: 'first' }, { name: 'noop', id: 'second' }] }
    const kit = await testPlugin(stepLimit, { maxSteps: 1 }, { plugins: [failSecond], tools: [concluding], responses: [twoCalls, { text: 'a second step' }] })
    const turn = await kit.send('go')
    expectRejected(turn, { by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 1, step: 2 } })
    expect(kit.model.requests).toBe(1)
    await kit.close()
  })

  it('a tool that steers at every step (a plain string: source user) does not open turn after turn: the put-back turn, refused too, puts nothing back', async () => {
    let sent = 0
    const kit: PluginKit = await testPlugin(stepLimit, { maxSteps: 2 }, {
      tools: [{ ...noop, execute: () => (kit.agent.steer(`keep going ${++sent}`), 'done') }],
      // Two steps a turn: four turns' worth, then the scripted model's echo ends one.
      responses: toolCalls(8),
    })
    const run = await kit.send('go')
    // Turn 1 refused with the second steer put back; turn 2, which it opened, refused with none.
    expect(run.turns).toEqual([1, 2])
    expect(run.rejected).toMatchObject({ by: 'step-limit', metadata: { step: 3 } })
    expect(run.entered).toEqual(['go', 'keep going 1', 'keep going 2', 'keep going 3'])
    expect(run.end).toMatchObject({ kind: 'blocked', by: 'step-limit' })
    expect(kit.agent.inbox.nextStep).toHaveLength(0)
    expect(kit.agent.status).toBe('idle')
    await kit.close()
  })
})
