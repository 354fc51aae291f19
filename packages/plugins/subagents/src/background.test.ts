import { describe, expect, it } from 'vitest'
import { childIds, gate, ofType, parent, startedId, textOf, toolResults, until } from '../test/harness.js'

const userMessages = (events: readonly { type: string; data: unknown }[]) =>
  ofType(events as never, 'user/message').map((e) => e.data as { id: string; source: Record<string, unknown>; content: { text?: string }[] })

describe('spawn_agent, background', () => {
  it('returns the child id at admission; the settlement arrives as one durable follow-up when the parent is idle', async () => {
    const root = await parent({
      script: {
        research: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'dig', mode: 'background' } }] }, { text: 'waiting' }],
        dig: [{ toolCalls: [{ name: 'report', args: { content: 'found gold' } }] }, { text: 'bye' }],
      },
    })
    root.followup('research')
    await until(() => userMessages(root.session.events).some((m) => m.id.startsWith('settle:')), 'the settle message to run')
    await root.whenIdle()
    const [childId] = childIds(root.session.events)
    expect(textOf(toolResults(root.session.events)[0]!.content)).toContain(`Started background agent ${childId}`)
    const settle = userMessages(root.session.events).find((m) => m.id.startsWith('settle:'))!
    expect(settle.id).toBe(`settle:${childId}:1`)
    expect(settle.source).toEqual({ kind: 'subagent-settled', childId, epoch: 1, delivery: 'followup' })
    expect(settle.content[0]!.text).toContain('found gold')
    expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId, epoch: 1, messageId: `settle:${childId}:1`, reason: 'completed', answer: 'found gold' }])
    expect(ofType(root.session.events, 'subagent/spawned')[0]!.data).toMatchObject({ mode: 'background', depth: 1 })
    // one turn for the prompt, one for the settlement
    expect(ofType(root.session.events, 'turn/start')).toHaveLength(2)
    await root.close()
  })

  it('a child settling while the parent runs arrives as a steer, in the same turn', async () => {
    const hold = gate()
    let childSettled = false
    const root = await parent({
      script: {
        work: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'quick', mode: 'background' } }] },
          { toolCalls: [{ name: 'wait', args: {} }] },
          { text: 'all done' },
        ],
        quick: [{ text: 'quick answer' }],
      },
      tools: [{ name: 'wait', description: 'waits', parameters: { type: 'object' }, execute: async () => { await hold.promise; return 'waited' } }],
    })
    root.hooks.event.tap('test', (event) => { if (event.type === 'subagent/settled') childSettled = true })
    root.followup('work')
    await until(() => childSettled, 'the child to settle')
    expect(root.status).toBe('running')
    hold.open()
    await root.whenIdle()
    expect(ofType(root.session.events, 'turn/start')).toHaveLength(1)
    const splice = ofType(root.session.events, 'agent/inbox/spliced').find((e) => (e.data as { inserted: { id: string }[] }).inserted.some((m) => m.id.startsWith('settle:')))!
    expect((splice.data as { target: string }).target).toBe('next-step')
    expect((splice.data as { inserted: { source: unknown }[] }).inserted[0]!.source).toMatchObject({ kind: 'subagent-settled', delivery: 'steer' })
    await root.close()
  })

  it('send_to_agent continues a background child: it settles again with the next epoch', async () => {
    let round = 0
    const root = await parent({
      script: {
        chat: [
          { toolCalls: [{ name: 'spawn_agent', args: { task: 'remember 7', mode: 'background' } }] },
          { text: 'started' },
          (request) => ({ toolCalls: [{ name: 'send_to_agent', args: { childId: startedId(request), message: 'add 1' } }] }),
          { text: 'sent' },
          { text: 'thanks' },
        ],
        'remember 7': [{ text: 'remembered' }, () => ({ text: `now ${7 + ++round}` })],
      },
    })
    root.followup('chat')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 2, 'two settlements')
    await root.whenIdle()
    const [childId] = childIds(root.session.events)
    expect(ofType(root.session.events, 'subagent/settled').map((e) => (e.data as { epoch: number }).epoch)).toEqual([1, 2])
    const second = userMessages(root.session.events).find((m) => m.id === `settle:${childId}:2`)!
    expect(second.content[0]!.text).toContain('now 8')
    expect(ofType(root.session.events, 'subagent/sent')).toHaveLength(1)
    await root.close()
  })
})
