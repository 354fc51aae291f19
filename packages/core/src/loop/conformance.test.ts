// The loop against the seeds (issue "the loop does what the seeds say"): each test pins one rule
// that an earlier version broke.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { BosunError } from '../errors.js'
import type { ModelAdapter, ModelRequest } from '../model.js'
import { definePlugin } from '../plugin.js'
import { memoryStore } from '../store/memory.js'
import type { Store } from '../store/types.js'
import { chunkAdapter } from '../testing/adapters.js'
import { is, nextEvent } from '../testing/agent-probes.js'
import { thrown } from '../testing/errors.js'
import { gate, harness, msg } from '../testing/harness.js'
import { tool } from '../testing/tools.js'
import { createAgent } from '../create-agent.js'

const types = (events: readonly { type: string }[]) => events.map((event) => event.type)

/**
 * One step that streams text and a complete tool call, then ends with `finish`: runs the turn and a
 * follow-up, and gives what a test checks — how often the tool ran, the requests, the timeline.
 */
async function stepEndingWithCall(finish: 'max-tokens' | 'content-filter') {
  let ran = 0
  const model = scripted({ record: true, responses: [{ text: 'p', toolCalls: [{ name: 't', args: {} }], finish }] })
  const { agent, timeline } = await harness({ model, tools: [tool('t', () => (ran++, 'done'))] })
  agent.followup('go')
  await agent.whenIdle()
  const afterTurn = { ran, requests: model.recorded.length, timeline: timeline() }
  // The chunks still show what arrived, the call included.
  const callStreamed = agent.session.events.some((e) => e.type === 'assistant/chunk' && (e.data as { chunk: { type: string } }).chunk.type === 'tool-call-delta')
  agent.followup('again')
  await agent.whenIdle()
  const next = model.recorded[1]!
  return { ...afterTurn, callStreamed, nextHasToolCall: next.messages.some((m) => m.content.some((block: { type: string }) => block.type === 'tool-call')) }
}

describe('content-filter', () => {
  it('drops the step\'s tool calls: a response the provider stopped runs nothing, the turn completes', async () => {
    const step = await stepEndingWithCall('content-filter')
    expect(step.ran).toBe(0)
    expect(step.requests).toBe(1)
    expect(step.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message "p"
      step/end 1.1 content-filter
      turn/end 1 completed"
    `)
    expect(step.callStreamed).toBe(true)
    // No unpaired call reaches the next request.
    expect(step.nextHasToolCall).toBe(false)
  })
})

describe('max-tokens', () => {
  it('drops the step\'s tool calls: nothing runs, no second request, the turn ends max-tokens', async () => {
    const step = await stepEndingWithCall('max-tokens')
    expect(step.ran).toBe(0)
    expect(step.requests).toBe(1)
    expect(step.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message "p"
      step/end 1.1 max-tokens
      turn/end 1 max-tokens"
    `)
    expect(step.callStreamed).toBe(true)
    // No unpaired call reaches the next request.
    expect(step.nextHasToolCall).toBe(false)
  })

  it('a truncated step that delivered only a tool call writes no (empty) assistant message', async () => {
    const model = chunkAdapter([
      { type: 'tool-call-delta', index: 0, id: 'c1', name: 't', argumentsDelta: '{"a":' },
      { type: 'finish', reason: 'max-tokens' },
    ])
    const { agent } = await harness({ model, tools: [tool('t', () => 'x')] })
    agent.followup('go')
    await agent.whenIdle()
    expect(types(agent.session.events)).not.toContain('assistant/message')
    expect(agent.session.events.filter(is('turn/end')).map((e) => e.data)).toEqual([{ turn: 1, reason: { kind: 'max-tokens' } }])
    expect(agent.surface.messages.map((m) => m.role)).toEqual(['user'])
  })
})

describe('a canceled stream that delivered only a tool-call fragment', () => {
  it('writes no assistant message; the chunks stay in the log and the history has no empty message', async () => {
    const hold = gate()
    const stalling: ModelAdapter = {
      name: 'stalling',
      async *stream() {
        yield { type: 'tool-call-delta', index: 0, id: 'c1', name: 'charge', argumentsDelta: '{"amount":' }
        await hold.promise
      },
    }
    const { agent } = await harness({ model: stalling })
    const chunk = nextEvent(agent, is('assistant/chunk'))
    agent.followup('pay')
    await chunk
    agent.abort()
    await agent.whenIdle()
    expect(types(agent.session.events)).toContain('assistant/chunk')
    expect(types(agent.session.events)).not.toContain('assistant/message')
    expect(agent.surface.messages.every((m) => m.content.length > 0)).toBe(true)
  })
})

describe('abort', () => {
  it('an abort() from a status observer when the status becomes running lands: no turn runs, the input stays parked', async () => {
    const { agent, adapter } = await harness()
    agent.hooks.status.tap('stopper', (status) => {
      if (status === 'running') agent.abort('changed my mind')
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(adapter.requests).toBe(0)
    expect(types(agent.session.events)).not.toContain('step/start')
    expect(agent.inbox.nextTurn.map((m) => m.id)).toHaveLength(1)
  })
})

describe('cancel()', () => {
  it('clears what was pending first, then aborts: a follow-up sent by an abort listener is new work and runs', async () => {
    let agentRef: Awaited<ReturnType<typeof harness>>['agent'] | undefined
    const slow: ModelAdapter = {
      name: 'slow',
      async *stream(request, { signal }) {
        if (request.messages.some((m) => (m as { id?: string }).id === 'reaction')) {
          yield { type: 'text-delta', text: 'handled' }
          return
        }
        // A listener that reacts to the cancel by sending new work.
        signal.addEventListener('abort', () => agentRef!.followup(msg('sent in reaction', 'reaction')))
        yield { type: 'text-delta', text: 'working' }
        await new Promise((resolve) => signal.addEventListener('abort', resolve))
      },
    }
    const { agent } = await harness({ model: slow })
    agentRef = agent
    const started = nextEvent(agent, is('assistant/chunk'))
    agent.followup('long job')
    agent.followup(msg('queued before the cancel', 'old'))
    await started
    agent.cancel()
    await agent.whenIdle()
    const stepped = agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)
    expect(stepped).toContain('reaction')
    expect(stepped).not.toContain('old')
    expect(agent.inbox.hasPending).toBe(false)
  })
})

describe('a pre-step that enters an empty list', () => {
  it('on the first step ends the turn completed with no step/start and no request', async () => {
    const { agent, adapter, timeline } = await harness()
    agent.hooks.preStep.tap('drop-all', () => ({ kind: 'enter', messages: [] }))
    agent.followup('ignored')
    await agent.whenIdle()
    expect(adapter.requests).toBe(0)
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["ignored"]
      turn/start 1
      splice next-turn @0 -1
      turn/end 1 completed"
    `)
  })

  it('after tool results still opens the step: the model owes an answer', async () => {
    const model = scripted({ responses: [{ toolCalls: [{ name: 't', args: {} }] }, { text: 'answered' }] })
    const { agent } = await harness({ model, tools: [tool('t', () => 'result')] })
    agent.hooks.preStep.tap('drop-all-later', (decision, context) => (context.step === 1 ? decision : { kind: 'enter', messages: [] }))
    agent.followup('go')
    await agent.whenIdle()
    expect(agent.session.events.filter(is('step/start'))).toHaveLength(2)
    expect(agent.surface.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'answered' }] })
  })
})

describe('a turn/start the store refuses', () => {
  it('uses up no turn number and leaves the message pending for the next wake', async () => {
    const inner = memoryStore()
    let refuse = true
    const store: Store = {
      ...inner,
      create: async (header, seed) => {
        const stored = await inner.create(header, seed)
        return {
          ...stored,
          writer: {
            ...stored.writer,
            append: (event) => {
              if (event.type === 'turn/start' && refuse) {
                refuse = false
                throw new BosunError('STORE', 'disk full (test)')
              }
              stored.writer.append(event)
            },
            flush: () => stored.writer.flush(),
            close: () => stored.writer.close(),
          },
        }
      },
    }
    const errors: unknown[] = []
    const { agent } = await harness({ store })
    agent.hooks.error.tap('test', (error) => errors.push(error))
    const message = agent.followup('hello')
    await agent.whenIdle()
    expect(errors).toHaveLength(1)
    expect(agent.turn).toBe(0)
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual([message.id])
    agent.wake()
    await agent.whenIdle()
    expect(agent.session.events.filter(is('turn/start')).map((e) => e.data)).toEqual([{ turn: 1 }])
    expect(agent.turn).toBe(1)
  })
})

describe('the model request is read-only', () => {
  it('a prepareCall tap that pushes into request.messages fails (READ_ONLY) and the history stays as logged', async () => {
    const { agent } = await harness()
    agent.hooks.prepareCall.tap('sneaky', (request) => {
      ;(request.messages as ModelRequest['messages'][number][]).push({ role: 'user', id: 'ghost', content: [{ type: 'text', text: 'boo' }] })
      return request
    })
    agent.followup('x')
    await agent.whenIdle()
    const end = agent.session.events.filter(is('turn/end')).at(-1)!.data as { reason: { kind: string; error?: { message: string } } }
    expect(end.reason.kind).toBe('error')
    expect(end.reason.error?.message).toMatch(/read-only/)
    expect(agent.surface.messages.map((m) => m.role)).toEqual(['user'])
  })

  it('an assignment to the request throws; returning a new request is how a tap changes it', async () => {
    const model = scripted({ record: true })
    const { agent } = await harness({ model })
    let assignment: unknown
    agent.hooks.prepareCall.tap('assigner', (request) => {
      try {
        ;(request as { system: string }).system = 'changed in place'
      } catch (error) {
        assignment = error
      }
      return { ...request, system: 'changed by return', messages: [...request.messages, { role: 'user', id: 'extra', content: [{ type: 'text', text: 'one-off' }] }] }
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(assignment).toBeInstanceOf(TypeError)
    expect(model.recorded[0]!.system).toBe('changed by return')
    expect(model.recorded[0]!.messages.map((m) => (m as { id?: string }).id)).toContain('extra')
    // The one-off message reached the model, not the history.
    expect(agent.surface.messages.map((m) => (m as { id?: string }).id)).not.toContain('extra')
  })

  it('an adapter cannot change the history it is sent, and the history equals a resumed one', async () => {
    const store = memoryStore()
    const vandal: ModelAdapter = {
      name: 'vandal',
      async *stream(request) {
        expect(() => (request.messages as unknown[]).push({})).toThrow(/read-only/)
        expect(() => ((request.messages as unknown[])[0] = {})).toThrow(/read-only/)
        expect(() => (request.messages as unknown[]).splice(0)).toThrow(/read-only/)
        expect(() => Object.freeze(request.messages)).toThrow()
        yield { type: 'text-delta', text: 'ok' }
      },
    }
    const agent = await createAgent({ model: vandal, store, sessionId: 's' })
    agent.followup('one')
    await agent.whenIdle()
    agent.followup('two')
    await agent.whenIdle()
    const live = JSON.stringify(agent.surface.messages)
    await agent.close()
    const resumed = await createAgent({ model: vandal, store, sessionId: 's' })
    expect(JSON.stringify(resumed.surface.messages)).toBe(live)
    expect(JSON.parse(live)).toHaveLength(4)
  })

  it('a request keeps the history as it was when it was made, after later appends', async () => {
    let kept: ModelRequest | undefined
    const model = scripted({ responses: [{ text: 'first' }, { text: 'second' }] })
    const spy: ModelAdapter = {
      name: 'spy',
      stream(request, options) {
        kept ??= request
        return model.stream(request, options)
      },
    }
    const { agent } = await harness({ model: spy })
    agent.followup('one')
    await agent.whenIdle()
    agent.followup('two')
    await agent.whenIdle()
    expect(kept!.messages).toHaveLength(1)
    expect([...kept!.messages].map((m) => m.role)).toEqual(['user'])
    expect(JSON.parse(JSON.stringify(kept!.messages))).toHaveLength(1)
    expect(agent.surface.messages).toHaveLength(4)
  })
})

describe('request/context: the log shows what the model saw', () => {
  it('logs the system prompt and tools before the first request, and again only when they change', async () => {
    let variant = 'A'
    const { agent } = await harness({
      system: () => `system ${variant}`,
      tools: [tool('lookup', () => 'found', { description: 'look something up', parameters: { type: 'object', properties: { q: { type: 'string' } } } })],
      responses: [{ toolCalls: [{ name: 'lookup', args: { q: 'x' } }] }, { text: 'done' }, { text: 'again' }, { text: 'changed' }],
    })
    agent.followup('one')
    await agent.whenIdle()
    agent.followup('two')
    await agent.whenIdle()
    variant = 'B'
    agent.followup('three')
    await agent.whenIdle()
    const contexts = agent.session.events.filter(is('request/context'))
    expect(contexts.map((e) => e.data)).toEqual([
      { system: 'system A', tools: [{ name: 'lookup', description: 'look something up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] },
      { system: 'system B', tools: [{ name: 'lookup', description: 'look something up', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] },
    ])
    // Each is right before the request/header it applies to.
    for (const context of contexts) expect(agent.session.events[context.seq + 1]!.type).toBe('request/header')
    expect(agent.session.events.filter(is('request/header'))).toHaveLength(4)
  })

  it('a tool set changed by prepareCall is logged; a resumed agent does not log an unchanged context again', async () => {
    const store = memoryStore()
    const plugins = [definePlugin({
      name: 'no-tools-on-turn-2',
      setup({ hooks }) {
        hooks.prepareCall.tap('no-tools', (request, context) => (context.turn === 2 ? { ...request, tools: [] } : request))
      },
    })]
    const tools = [tool('t', () => 'x')]
    const first = await createAgent({ model: scripted(), store, sessionId: 's', tools, plugins })
    first.followup('one')
    await first.whenIdle()
    first.followup('two')
    await first.whenIdle()
    await first.close()
    const second = await createAgent({ model: scripted(), store, sessionId: 's', tools, plugins })
    second.followup('three')
    await second.whenIdle()
    const contexts = second.session.events.filter(is('request/context')).map((e) => (e.data as { tools: { name: string }[] }).tools.map((t) => t.name))
    expect(contexts).toEqual([['t'], [], ['t']])
    second.followup('four')
    await second.whenIdle()
    expect(second.session.events.filter(is('request/context'))).toHaveLength(3)
  })
})

describe('message ids are receipts, unique for the life of a session', () => {
  it('a follow-up reusing the id of a claimed message is refused with DUPLICATE_MESSAGE_ID', async () => {
    const hold = gate()
    const { agent } = await harness({ tools: [tool('wait', () => hold.promise.then(() => 'done'))], responses: [{ toolCalls: [{ name: 'wait', args: {} }] }] })
    const called = nextEvent(agent, is('tool/call'))
    agent.followup(msg('charge the card', 'receipt-1'))
    await called
    expect(thrown(() => agent.followup(msg('something else', 'receipt-1'))).code).toBe('DUPLICATE_MESSAGE_ID')
    hold.open()
    await agent.whenIdle()
    // Delivered, too: still refused.
    expect(thrown(() => agent.steer(msg('later', 'receipt-1'))).code).toBe('DUPLICATE_MESSAGE_ID')
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(1)
  })
})
