import { describe, it, expect } from 'vitest'
import { definePlugin } from '../plugin.js'
import { createUserMessage, messageText } from '../session/messages.js'
import { Session } from '../session/session.js'
import type { Tool } from '../tools/types.js'
import { harness, msg } from '../testing/harness.js'
import { blockingTool } from '../testing/tools.js'
import { foldConsumedWork } from './consumed-work.js'
import { Inbox } from './inbox.js'
import type { InboxSplice } from './types.js'

/** A pre-step policy that rejects any step carrying a message whose text contains "forbidden". */
const gatekeeper = definePlugin({
  name: 'gatekeeper',
  setup({ hooks }) {
    hooks.preStep.tapPromise('gatekeeper', async (decision) =>
      decision.kind === 'enter' && decision.messages.some((m) => messageText(m).includes('forbidden'))
        ? { kind: 'reject', metadata: { rule: 'no-forbidden' } }
        : decision,
    )
  },
})

describe('foldConsumedWork over agent logs', () => {
  it('three follow-ups are three turns, each stepping its own message; nothing canceled or pending', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'one' }, { text: 'two' }, { text: 'three' }] })
    agent.followup(msg('q1'))
    agent.followup(msg('q2'))
    agent.followup(msg('q3'))
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events)).toEqual({
      turns: [
        { turn: 1, stepped: ['q1'], unstepped: [], end: 'completed' },
        { turn: 2, stepped: ['q2'], unstepped: [], end: 'completed' },
        { turn: 3, stepped: ['q3'], unstepped: [], end: 'completed' },
      ],
      canceled: [],
      pending: { 'next-turn': [], 'next-step': [] },
    })
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["q1"]
      splice next-turn @1 +["q2"]
      splice next-turn @2 +["q3"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "q1"
      assistant/message "one"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "q2"
      assistant/message "two"
      step/end 2.1 stop
      turn/end 2 completed
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "q3"
      assistant/message "three"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
  })

  it('a message rejected by a pre-step plugin was claimed but never stepped, and is not re-queued', async () => {
    const { agent, timeline } = await harness({ plugins: [gatekeeper], responses: [{ text: 'fine' }, { text: 'also fine' }] })
    agent.followup(msg('hello'))
    agent.followup(msg('something forbidden'))
    agent.followup(msg('bye'))
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.turns).toEqual([
      { turn: 1, stepped: ['hello'], unstepped: [], end: 'completed' },
      { turn: 2, stepped: [], unstepped: ['something forbidden'], end: 'blocked' },
      { turn: 3, stepped: ['bye'], unstepped: [], end: 'completed' },
    ])
    expect(work.canceled).toEqual([])
    expect(work.pending).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hello"]
      splice next-turn @1 +["something forbidden"]
      splice next-turn @2 +["bye"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hello"
      assistant/message "fine"
      step/end 1.1 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      rejected 2 by=gatekeeper {"rule":"no-forbidden"}
      turn/end 2 blocked by=gatekeeper {"rule":"no-forbidden"}
      turn/start 3
      splice next-turn @0 -1
      step/start 3.1
      user/message "bye"
      assistant/message "also fine"
      step/end 3.1 stop
      turn/end 3 completed"
    `)
  })

  it('a steer during a tool call is claimed by the next step of the same turn and stepped there', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent, timeline } = await harness({
      tools: [wait.tool],
      responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'steered' }],
    })
    agent.followup(msg('start'))
    await wait.started
    agent.steer(msg('go left'))
    agent.inject(createUserMessage('the map', { id: 'map', source: { kind: 'plugin', plugin: 'maps' } }))
    wait.release()
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events).turns).toEqual([
      { turn: 1, stepped: ['start', 'go left', 'map'], unstepped: [], end: 'completed' },
    ])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["start"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "start"
      assistant/message wait({})
      tool/call wait {}
      splice next-step @0 +["go left"]
      splice next-step @1 +["the map"]
      tool/result wait "done"
      step/end 1.1 tool-calls
      splice next-step @0 -2
      step/start 1.2
      user/message "go left"
      user/message "the map" (plugin)
      assistant/message "steered"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
  })

  it('tool contexts spliced into next-step are stepped in the following step', async () => {
    const tool: Tool = {
      name: 'read',
      description: 'read a file',
      parameters: { type: 'object' },
      execute: () => ({ content: 'file body', additionalContexts: [createUserMessage('README says hi', { id: 'ctx', source: { kind: 'tool' } })] }),
    }
    const { agent, timeline } = await harness({ tools: [tool], responses: [{ toolCalls: [{ name: 'read' }] }, { text: 'ok' }] })
    agent.followup(msg('read it'))
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events).turns).toEqual([
      { turn: 1, stepped: ['read it', 'ctx'], unstepped: [], end: 'completed' },
    ])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["read it"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "read it"
      assistant/message read({})
      tool/call read {}
      tool/result read "file body"
      splice next-step @0 +["README says hi"]
      step/end 1.1 tool-calls
      splice next-step @0 -1
      step/start 1.2
      user/message "README says hi" (tool)
      assistant/message "ok"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
  })

  it('cancel() during a turn reports the queued follow-ups as canceled and leaves nothing pending', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    agent.followup(msg('long job'))
    await wait.started
    agent.followup(msg('next 1'))
    agent.followup(msg('next 2'))
    agent.inject(msg('aside'))
    agent.cancel()
    wait.release()
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.canceled).toEqual(['aside', 'next 1', 'next 2']) // next-step cleared first
    expect(work.pending).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(work.turns).toEqual([{ turn: 1, stepped: ['long job'], unstepped: [], end: 'aborted' }])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["long job"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "long job"
      assistant/message wait({})
      tool/call wait {}
      splice next-turn @0 +["next 1"]
      splice next-turn @1 +["next 2"]
      splice next-step @0 +["aside"]
      splice next-step @0 -1 canceled
      splice next-turn @0 -2 canceled
      tool/result wait "done"
      step/end 1.1 aborted
      turn/end 1 aborted (canceled)"
    `)
  })

  it('cancel({ keepInbox: true }) leaves the queued work pending, not canceled', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    agent.followup(msg('long job'))
    await wait.started
    agent.followup(msg('later'))
    agent.inject(msg('aside'))
    agent.cancel({ keepInbox: true })
    wait.release()
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.canceled).toEqual([])
    expect(work.pending).toEqual({ 'next-turn': ['later'], 'next-step': ['aside'] })
    expect(work.pending).toEqual({
      'next-turn': agent.inbox.nextTurn.map((m) => m.id),
      'next-step': agent.inbox.nextStep.map((m) => m.id),
    })
    expect(work.turns.map((t) => t.end)).toEqual(['aborted'])
  })

  it('an inject while idle starts no turn and stays pending', async () => {
    const { agent } = await harness()
    agent.inject(msg('note'))
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events)).toEqual({
      turns: [],
      canceled: [],
      pending: { 'next-turn': [], 'next-step': ['note'] },
    })
  })

  it('an edit via replace keeps the id, is not reported canceled, and the edited text is what the step sees', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent, timeline } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'a' }, { text: 'b' }] })
    agent.followup(msg('first'))
    await wait.started
    agent.followup(msg('typo quesiton', 'q2'))
    agent.inbox.replace('q2', msg('typo question', 'q2'))
    wait.release()
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.canceled).toEqual([])
    expect(work.turns.map((t) => t.stepped)).toEqual([['first'], ['q2']])
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["first"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "first"
      assistant/message wait({})
      tool/call wait {}
      splice next-turn @0 +["typo quesiton"]
      splice next-turn @0 -1 +["typo question"] canceled
      tool/result wait "done"
      step/end 1.1 tool-calls
      step/start 1.2
      assistant/message "a"
      step/end 1.2 stop
      turn/end 1 completed
      turn/start 2
      splice next-turn @0 -1
      step/start 2.1
      user/message "typo question"
      assistant/message "b"
      step/end 2.1 stop
      turn/end 2 completed"
    `)
  })

  it('a replacement under a new id reports the original id canceled and steps the new one', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }, { text: 'a' }, { text: 'b' }] })
    agent.followup(msg('first'))
    await wait.started
    agent.followup(msg('old', 'old'))
    agent.inbox.replace('old', msg('new', 'new'))
    wait.release()
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.canceled).toEqual(['old'])
    expect(work.turns.map((t) => t.stepped)).toEqual([['first'], ['new']])
  })

  it('a turn whose system prompt fails after the claim leaves the claimed message unstepped (ended by error)', async () => {
    let calls = 0
    const { agent } = await harness({
      system: () => {
        if (calls++ === 0) throw new Error('prompt store offline')
        return 'be brief'
      },
      responses: [{ text: 'ok' }],
    })
    agent.followup(msg('lost'))
    await agent.whenIdle()
    agent.followup(msg('retry'))
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    expect(work.turns).toEqual([
      { turn: 1, stepped: [], unstepped: ['lost'], end: 'error' },
      { turn: 2, stepped: ['retry'], unstepped: [], end: 'completed' },
    ])
    expect(work.canceled).toEqual([])
  })

  it('a model error after the user/message still counts the message as stepped', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 400 } }] })
    agent.followup(msg('bad request'))
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events).turns).toEqual([
      { turn: 1, stepped: ['bad request'], unstepped: [], end: 'error' },
    ])
  })

  it('an open turn (no turn/end yet) has no end and its claimed messages are not yet unstepped', async () => {
    const wait = blockingTool('wait', 'done')
    const { agent } = await harness({ tools: [wait.tool], responses: [{ toolCalls: [{ name: 'wait' }] }] })
    agent.followup(msg('working'))
    await wait.started
    expect(foldConsumedWork(agent.session.events).turns).toEqual([{ turn: 1, stepped: ['working'], unstepped: [] }])
    wait.release()
    await agent.whenIdle()
  })

  it('splices before seedLength are ignored: only the child history is folded', async () => {
    const { agent } = await harness({ responses: [{ text: 'one' }, { text: 'two' }] })
    agent.followup(msg('parent question'))
    await agent.whenIdle()
    agent.inject(msg('parent note'))
    agent.inbox.remove('parent note')
    agent.inject(msg('parked'))
    agent.inbox.claim('next-step', 99) // outside any turn: neither canceled nor attributed to a turn
    const seedLength = agent.session.length
    agent.followup(msg('child question'))
    await agent.whenIdle()

    const whole = foldConsumedWork(agent.session.events)
    expect(whole.canceled).toEqual(['parent note'])
    expect(whole.turns).toEqual([
      { turn: 1, stepped: ['parent question'], unstepped: [], end: 'completed' },
      { turn: 2, stepped: ['child question'], unstepped: [], end: 'completed' },
    ])
    expect(whole.pending).toEqual({ 'next-turn': [], 'next-step': [] })

    // A child log whose own history starts after the seed: a fresh Session with seedLength.
    const events = [...agent.session.events]
    const child = foldConsumedWork(events, seedLength)
    expect(child).toEqual({
      turns: [{ turn: 2, stepped: ['child question'], unstepped: [], end: 'completed' }],
      canceled: [],
      pending: { 'next-turn': [], 'next-step': [] },
    })
  })

  it('a cancel from a session observer while the claim is logged: the log still replays, and each message is accounted once', async () => {
    const { agent } = await harness({ responses: [{ text: 'x' }] })
    let armed = true
    agent.hooks.event.tap('canceller', (event) => {
      const splice = event.data as InboxSplice
      if (armed && event.type === 'agent/inbox/spliced' && splice.removedCount !== undefined && splice.outcome === undefined) {
        armed = false
        agent.cancel()
      }
    })
    agent.inject(msg('ctx'))
    agent.followup(msg('q'))
    await agent.whenIdle()
    const work = foldConsumedWork(agent.session.events)
    const accounted = [...work.turns.flatMap((t) => [...t.stepped, ...t.unstepped]), ...work.canceled]
    expect(accounted.sort()).toEqual(['ctx', 'q'])
    expect(work.pending).toEqual({ 'next-turn': [], 'next-step': [] })
    expect(() => new Inbox(agent.session)).not.toThrow()
  })

  it('is a pure function of the log: same answer twice, from a JSON copy too', async () => {
    const { agent } = await harness({ plugins: [gatekeeper], responses: [{ text: 'x' }] })
    agent.followup(msg('forbidden fruit'))
    agent.followup(msg('apple'))
    await agent.whenIdle()
    agent.inject(msg('p'))
    const first = foldConsumedWork(agent.session.events)
    expect(foldConsumedWork(agent.session.events)).toEqual(first)
    const copy = new Session(agent.session.header, JSON.parse(JSON.stringify(agent.session.events)))
    expect(foldConsumedWork(copy.events)).toEqual(first)
    expect(first).toEqual({
      turns: [
        { turn: 1, stepped: [], unstepped: ['forbidden fruit'], end: 'blocked' },
        { turn: 2, stepped: ['apple'], unstepped: [], end: 'completed' },
      ],
      canceled: [],
      pending: { 'next-turn': [], 'next-step': ['p'] },
    })
  })

  it('a turn still open reports what it claimed and has not yet delivered as inFlight (not unstepped)', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    let holding = false
    const hold = definePlugin({
      name: 'hold',
      setup({ hooks }) {
        hooks.preStep.tapPromise('hold', async (decision) => {
          holding = true
          await held
          return decision
        })
      },
    })
    const { agent } = await harness({ plugins: [hold], responses: [{ text: 'x' }] })
    agent.followup(msg('q'))
    while (!holding) await new Promise((r) => setImmediate(r))
    expect(foldConsumedWork(agent.session.events).turns).toEqual([{ turn: 1, stepped: [], unstepped: [], inFlight: ['q'] }])
    release()
    await agent.whenIdle()
    expect(foldConsumedWork(agent.session.events).turns).toEqual([{ turn: 1, stepped: ['q'], unstepped: [], end: 'completed' }])
  })
})
