// The model call of a step: prepareCall → request/header + flush → llm/stream → chunks assembled into
// one assistant/message; finish reasons, model errors and hook failures (SPEC §4, §5, §7, §8; seed 000 flow).
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import type { ModelAdapter, ModelChunk } from '../model.js'
import { ModelError } from '../model.js'
import { chunkAdapter } from '../testing/adapters.js'
import { statuses } from '../testing/agent-probes.js'
import { harness } from '../testing/harness.js'
import { loggingStore } from '../testing/stores.js'
import { tool } from '../testing/tools.js'
import type { Agent } from './agent.js'

const dataOf = <T>(agent: Agent, type: string): T[] => agent.session.events.filter((e) => e.type === type).map((e) => e.data as T)

describe('streaming and assembly', () => {
  it('logs every chunk as assistant/chunk and assembles them into one assistant/message', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'hello', chunkSize: 2 }] })
    agent.followup('hi')
    await agent.whenIdle()
    expect(timeline({ chunks: true })).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      assistant/chunk {"type":"text-delta","text":"he"}
      assistant/chunk {"type":"text-delta","text":"ll"}
      assistant/chunk {"type":"text-delta","text":"o"}
      assistant/chunk {"type":"finish","reason":"stop"}
      assistant/message "hello"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(dataOf<{ message: unknown }>(agent, 'assistant/message')[0]!.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'hello' }],
    })
  })

  it('assembles reasoning and text into separate blocks, in stream order, and records usage on the assistant/message', async () => {
    const { agent, timeline } = await harness({
      responses: [{ reasoning: 'think hard', text: 'answer', chunkSize: 3, usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 } }],
    })
    agent.followup('q')
    await agent.whenIdle()
    expect(timeline().split('\n').at(-3)).toBe('assistant/message (reasoning "think hard") "answer"')
    const [data] = dataOf<{ message: unknown; usage: unknown; interrupted?: boolean }>(agent, 'assistant/message')
    expect(data).toEqual({
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'reasoning', text: 'think hard' }, { type: 'text', text: 'answer' }] },
      usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 },
    })
  })

  it('starts a new block whenever the delta kind changes, and keeps reasoning signatures', async () => {
    const model = chunkAdapter([
      { type: 'reasoning-delta', text: 'a' },
      { type: 'reasoning-delta', text: 'b', provider: 'anthropic' },
      // a signature may arrive in pieces; it closes the block (text after it would start a new one)
      { type: 'reasoning-delta', text: '', signature: 'sig-' },
      { type: 'reasoning-delta', text: '', signature: '1' },
      { type: 'text-delta', text: 'x' },
      { type: 'reasoning-delta', text: 'c' },
      { type: 'text-delta', text: 'y' },
      { type: 'usage', usage: { inputTokens: 1 } },
      { type: 'usage', usage: { outputTokens: 2 } },
      { type: 'finish', reason: 'stop' },
    ])
    const { agent } = await harness({ model })
    agent.followup('q')
    await agent.whenIdle()
    const [data] = dataOf<{ message: { content: unknown[] }; usage: unknown }>(agent, 'assistant/message')
    expect(data!.message.content).toEqual([
      { type: 'reasoning', text: 'ab', signature: 'sig-1', provider: 'anthropic' },
      { type: 'text', text: 'x' },
      { type: 'reasoning', text: 'c' },
      { type: 'text', text: 'y' },
    ])
    expect(data!.usage).toEqual({ inputTokens: 1, outputTokens: 2 })
  })

  it('assembles interleaved tool-call deltas by index, in order of first appearance, and runs the calls with the assembled arguments', async () => {
    const seen: unknown[] = []
    const read = tool('read', (args) => {
      seen.push(['read', args])
      return 'r'
    })
    const write = tool('write', (args) => {
      seen.push(['write', args])
      return 'w'
    })
    const model = chunkAdapter(
      [
        { type: 'text-delta', text: 'doing it' },
        { type: 'tool-call-delta', index: 1, id: 'w1', name: 'wr' },
        { type: 'tool-call-delta', index: 0, id: 'r1', name: 'read' },
        { type: 'tool-call-delta', index: 1, name: 'ite', argumentsDelta: '{"pa' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: 'th":"b"}' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"a"}' },
        { type: 'finish', reason: 'tool-calls' },
      ],
      [{ type: 'text-delta', text: 'done' }, { type: 'finish', reason: 'stop' }],
    )
    const { agent, timeline } = await harness({ model, tools: [read, write] })
    agent.followup('go')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["go"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "go"
      assistant/message "doing it" write({"path":"b"}) read({"path":"a"})
      tool/call write {"path":"b"}
      tool/call read {"path":"a"}
      tool/result write "w"
      tool/result read "r"
      step/end 1.1 tool-calls
      step/start 1.2
      assistant/message "done"
      step/end 1.2 stop
      turn/end 1 completed"
    `)
    expect(seen).toEqual([
      ['write', { path: 'b' }],
      ['read', { path: 'a' }],
    ])
    expect(dataOf<{ callId: string }>(agent, 'tool/result').map((r) => r.callId)).toEqual(['w1', 'r1'])
  })

  it('gives tool calls without an id a stable id of turn, step and position, used by tool/call and tool/result', async () => {
    const model = chunkAdapter([
      { type: 'tool-call-delta', index: 0, name: 'noop', argumentsDelta: '{}' },
      { type: 'tool-call-delta', index: 1, name: 'noop', argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool-calls' },
    ])
    const { agent } = await harness({ model, tools: [tool('noop', () => 'ok')] })
    agent.followup('go')
    await agent.whenIdle()
    const message = dataOf<{ message: { content: { id?: string }[] } }>(agent, 'assistant/message')[0]!.message
    expect(message.content.map((b) => b.id)).toEqual(['call_1_1_0', 'call_1_1_1'])
    expect(dataOf<{ callId: string }>(agent, 'tool/call').map((c) => c.callId)).toEqual(['call_1_1_0', 'call_1_1_1'])
    expect(dataOf<{ callId: string }>(agent, 'tool/result').map((c) => c.callId)).toEqual(['call_1_1_0', 'call_1_1_1'])
  })

  it('sends the model the system prompt, the whole surface history and the tool specs', async () => {
    const model = scripted({ record: true, responses: [{ text: 'first' }, { toolCalls: [{ name: 'noop' }] }, { text: 'second' }] })
    const { agent } = await harness({ model, system: 'sys', tools: [tool('noop', () => 'ok')] })
    agent.followup('a')
    agent.followup('b')
    await agent.whenIdle()
    expect(model.recorded.map((r) => [r.system, r.tools, r.messages.map((m) => m.role)])).toEqual([
      ['sys', ['noop'], ['user']],
      ['sys', ['noop'], ['user', 'assistant', 'user']],
      ['sys', ['noop'], ['user', 'assistant', 'user', 'assistant', 'tool']],
    ])
  })
})

describe('finish reasons', () => {
  it('max-tokens ends the step and the turn with max-tokens, keeping the partial answer', async () => {
    const { agent, timeline } = await harness({ responses: [{ reasoning: 'r', text: 'cut o', finish: 'max-tokens' }] })
    agent.followup('long question')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["long question"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "long question"
      assistant/message (reasoning "r") "cut o"
      step/end 1.1 max-tokens
      turn/end 1 max-tokens"
    `)
  })

  it('a finish of tool-calls without any tool call is a plain stop', async () => {
    const model = chunkAdapter([{ type: 'text-delta', text: 'nothing to call' }, { type: 'finish', reason: 'tool-calls' }])
    const { agent, timeline } = await harness({ model })
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-2)).toEqual(['step/end 1.1 stop', 'turn/end 1 completed'])
    expect(model.requests).toHaveLength(1)
  })

  it('tool calls end the step with tool-calls whatever finish the model reported', async () => {
    const model = chunkAdapter([
      { type: 'tool-call-delta', index: 0, id: 'c', name: 'noop', argumentsDelta: '{}' },
      { type: 'finish', reason: 'stop' },
    ])
    const { agent } = await harness({ model, tools: [tool('noop', () => 'ok')] })
    agent.followup('x')
    await agent.whenIdle()
    expect(dataOf<{ finish: string }>(agent, 'step/end').map((s) => s.finish)).toEqual(['tool-calls', 'stop'])
  })
})

describe('model errors', () => {
  it('an adapter error ends the turn with the typed error (RATE_LIMIT with status, retryable, retryAfterMs), and the next follow-up still works', async () => {
    const { agent, timeline } = await harness({ responses: [{ error: { status: 429, retryAfterMs: 10 } }, { text: 'recovered' }] })
    const seen = statuses(agent)
    agent.followup('first')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["first"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "first"
      step/end 1.1 error
      turn/end 1 error RATE_LIMIT"
    `)
    const reason = (agent.session.last!.data as { reason: { kind: string; error: Record<string, unknown> } }).reason
    expect(reason).toEqual({
      kind: 'error',
      error: { code: 'RATE_LIMIT', message: expect.any(String), status: 429, retryable: true, retryAfterMs: 10 },
      model: true,
    })
    agent.followup('second')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toEqual(['assistant/message "recovered"', 'step/end 2.1 stop', 'turn/end 2 completed'])
    expect(seen).toEqual(['running', 'idle', 'running', 'idle'])
  })

  it('a chunk that is not JSON ends the call as an error naming the chunk path; the logged prefix is the message', async () => {
    const odd = { type: 'text-delta', text: 'b', meta: () => 1 } as unknown as ModelChunk
    const model = chunkAdapter([{ type: 'text-delta', text: 'a' }, odd, { type: 'finish', reason: 'stop' }])
    const { agent } = await harness({ model })
    agent.followup('q')
    await agent.whenIdle()
    const chunks = agent.session.events.filter((event) => event.type === 'assistant/chunk')
    expect(chunks.map((event) => event.data)).toEqual([{ turn: 1, step: 1, chunk: { type: 'text-delta', text: 'a' } }])
    const reason = (agent.session.last!.data as { reason: { kind: string; error: { code: string; message: string } } }).reason
    expect(reason.kind).toBe('error')
    expect(reason.error.code).toBe('NOT_JSON')
    expect(reason.error.message).toContain('Event "assistant/chunk" data is not JSON: at $.chunk.meta')
    const message = agent.session.events.find((event) => event.type === 'assistant/message')!.data
    expect(message).toMatchObject({ message: { content: [{ type: 'text', text: 'a' }] }, interrupted: true })
  })

  it('a stream whose next() resolves to something that is not an iterator result ends the call as an error and closes the stream', async () => {
    let closed = false
    const model: ModelAdapter = {
      name: 'odd',
      stream: () => ({
        [Symbol.asyncIterator]: () => ({
          next: async () => undefined as unknown as IteratorResult<ModelChunk>,
          return: async () => {
            closed = true
            return { done: true as const, value: undefined }
          },
        }),
      }),
    }
    const { agent } = await harness({ model })
    agent.followup('q')
    await agent.whenIdle()
    const reason = (agent.session.last!.data as { reason: { kind: string; error: { message: string } } }).reason
    expect(reason.kind).toBe('error')
    expect(reason.error.message).toMatch(/done/)
    expect(closed).toBe(true)
  })

  it('an error while follow-ups are queued does not stop the driver: the next one runs at once', async () => {
    const { agent } = await harness({ responses: [{ error: { status: 500 } }] })
    const seen = statuses(agent)
    agent.followup('a')
    agent.followup('b')
    await agent.whenIdle()
    expect(dataOf<{ reason: { kind: string } }>(agent, 'turn/end').map((e) => e.reason.kind)).toEqual(['error', 'completed'])
    expect(seen).toEqual(['running', 'idle'])
  })

  it('text then an error keeps the delivered prefix as an interrupted assistant message', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'Half an ans', chunkSize: 4, error: { status: 503 } }] })
    agent.followup('q')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["q"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "q"
      assistant/message "Half an ans" interrupted
      step/end 1.1 error
      turn/end 1 error SERVER"
    `)
    expect(agent.surface.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Half an ans' }] })
  })

  it('an interrupted message drops tool calls that were cut off: they never run', async () => {
    let ran = 0
    const { agent, timeline } = await harness({
      tools: [
        tool('noop', () => {
          ran++
          return 'ok'
        }),
      ],
      responses: [{ text: 'calling', toolCalls: [{ name: 'noop' }], error: { status: 502 } }],
    })
    agent.followup('q')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toEqual(['assistant/message "calling" interrupted', 'step/end 1.1 error', 'turn/end 1 error SERVER'])
    expect(ran).toBe(0)
  })

  it('an empty stream (no content, no finish) fails the turn with EMPTY_RESPONSE', async () => {
    const model = chunkAdapter([])
    const { agent, timeline } = await harness({ model })
    agent.followup('q')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-2)).toEqual(['step/end 1.1 error', 'turn/end 1 error EMPTY_RESPONSE'])
    expect((agent.session.last!.data as { reason: { error: { retryable?: boolean } } }).reason.error.retryable).toBe(true)
  })

  it('a malformed chunk fails the turn with MALFORMED_CHUNK, keeping what was assembled before it', async () => {
    const model = chunkAdapter([{ type: 'text-delta', text: 'ok so far' }, { type: 'text-delta', text: 42 } as never])
    const { agent, timeline } = await harness({ model })
    agent.followup('q')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toEqual([
      'assistant/message "ok so far" interrupted',
      'step/end 1.1 error',
      'turn/end 1 error MALFORMED_CHUNK',
    ])
  })

  it('an adapter whose stream() throws synchronously fails the turn with its error, not the driver', async () => {
    const model: ModelAdapter = {
      name: 'broken',
      stream() {
        throw new ModelError('AUTH', 'bad key', { status: 401 })
      },
    }
    const { agent, timeline } = await harness({ model })
    agent.followup('a')
    agent.followup('b')
    await agent.whenIdle()
    expect(timeline().split('\n').filter((l) => l.startsWith('turn/end'))).toEqual(['turn/end 1 error AUTH', 'turn/end 2 error AUTH'])
  })
})

describe('hooks around the call', () => {
  it('prepareCall can change params and model; request/header and the adapter see them', async () => {
    const model = scripted({ record: true })
    const { agent, timeline } = await harness({ model })
    agent.hooks.prepareCall.tap('tuner', (request) => ({ ...request, model: 'cheap-model', params: { ...request.params, temperature: 0.2 } }))
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline({ requests: true }).split('\n').slice(5, 7)).toEqual(['request/context system "" tools []', 'request/header 1.1 1 messages'])
    expect(dataOf(agent, 'request/header')).toEqual([
      { turn: 1, step: 1, adapter: 'scripted', model: 'cheap-model', messageCount: 1, tools: [], params: { temperature: 0.2 } },
    ])
    expect(model.recorded[0]).toMatchObject({ model: 'cheap-model', params: { temperature: 0.2 } })
  })

  it('prepareCall can route to another adapter; the adapter is locked after the waterfall', async () => {
    const main = scripted({ responses: [{ text: 'from main' }] })
    const backup = scripted({ responses: [{ text: 'from backup' }] })
    const { agent, timeline } = await harness({ model: main })
    agent.hooks.prepareCall.tap('router', (request, context) => {
      context.adapter = { ...backup, name: 'backup', stream: (r, o) => backup.stream(r, o) }
      return request
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').at(-3)).toBe('assistant/message "from backup"')
    expect(dataOf<{ adapter: string }>(agent, 'request/header')[0]!.adapter).toBe('backup')
    expect(main.requests).toBe(0)
  })

  it('llm/stream can wrap the stream (here: upper-case the text); the log shows the wrapped chunks', async () => {
    const { agent, timeline } = await harness({ responses: [{ text: 'quiet words', chunkSize: 5 }] })
    agent.hooks.llmStream.tap('shout', (stream) =>
      (async function* () {
        for await (const chunk of stream) yield chunk.type === 'text-delta' ? { ...chunk, text: chunk.text.toUpperCase() } : chunk
      })(),
    )
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline({ chunks: true }).split('\n').slice(5, -2)).toMatchInlineSnapshot(`
      [
        "assistant/chunk {"type":"text-delta","text":"QUIET"}",
        "assistant/chunk {"type":"text-delta","text":" WORD"}",
        "assistant/chunk {"type":"text-delta","text":"S"}",
        "assistant/chunk {"type":"finish","reason":"stop"}",
        "assistant/message "QUIET WORDS"",
      ]
    `)
  })

  it('llm/stream can re-send the request through context.open() (a retry wrapper)', async () => {
    const { agent, adapter, timeline } = await harness({ responses: [{ error: { status: 503 } }, { text: 'second try' }] })
    agent.hooks.llmStream.tap('retry-once', (stream, { open }) =>
      (async function* () {
        try {
          yield* stream
        } catch {
          yield* open()
        }
      })(),
    )
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-3)).toEqual(['assistant/message "second try"', 'step/end 1.1 stop', 'turn/end 1 completed'])
    expect(adapter.requests).toBe(2)
  })

  it('a throwing prepareCall tap ends the open step with error and the turn with PLUGIN_HOOK_FAILED naming plugin and hook', async () => {
    const { agent, adapter, timeline } = await harness()
    agent.hooks.prepareCall.tapPromise('router', async () => {
      throw new Error('no route')
    })
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline()).toMatchInlineSnapshot(`
      "splice next-turn @0 +["x"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "x"
      step/end 1.1 error
      turn/end 1 error PLUGIN_HOOK_FAILED"
    `)
    const error = (agent.session.last!.data as { reason: { error: { message: string; details?: unknown } } }).reason.error
    expect(error.message).toBe('Plugin "router" failed in hook "prepareCall": no route')
    expect(error.details).toEqual({ plugin: 'router', hook: 'prepareCall' })
    expect(adapter.requests).toBe(0)
  })

  it('a throwing llm/stream tap fails the turn with PLUGIN_HOOK_FAILED and parks queued input until the next wake', async () => {
    const { agent, timeline } = await harness()
    let fail = true
    agent.hooks.llmStream.tap('filter', (stream) => {
      if (fail) {
        fail = false
        throw new Error('filter crashed')
      }
      return stream
    })
    agent.followup('a')
    agent.followup('b')
    await agent.whenIdle()
    expect(timeline().split('\n').at(-1)).toBe('turn/end 1 error PLUGIN_HOOK_FAILED')
    expect((agent.session.last!.data as { reason: { error: { message: string } } }).reason.error.message).toContain('"llm/stream"')
    expect(agent.inbox.nextTurn).toHaveLength(1)
    agent.followup('c')
    await agent.whenIdle()
    expect(dataOf<{ reason: { kind: string } }>(agent, 'turn/end').map((e) => e.reason.kind)).toEqual(['error', 'completed', 'completed'])
  })

  it('a prepareCall result of the wrong shape ends the turn with INVALID_HOOK_RESULT', async () => {
    const { agent, timeline } = await harness()
    agent.hooks.prepareCall.tap('broken', () => ({ messages: [] }) as never)
    agent.followup('x')
    await agent.whenIdle()
    expect(timeline().split('\n').slice(-2)).toEqual(['step/end 1.1 error', 'turn/end 1 error INVALID_HOOK_RESULT'])
  })
})

describe('durability', () => {
  it('flushes after request/header and before the adapter is called, and before each tool body', async () => {
    const log: string[] = []
    const store = loggingStore(log)
    const script = scripted({ responses: [{ toolCalls: [{ name: 'a' }, { name: 'b' }] }, { text: 'done' }] })
    const model: ModelAdapter = {
      name: 'scripted',
      stream(request, options) {
        log.push('MODEL CALLED')
        return script.stream(request, options)
      },
    }
    const a = tool('a', () => {
      log.push('TOOL a')
      return 'a'
    })
    const b = tool('b', () => {
      log.push('TOOL b')
      return 'b'
    })
    const { agent } = await harness({ store, model, tools: [a, b], maxParallelTools: 1 })
    agent.followup('x')
    await agent.whenIdle()
    const interesting = log.filter((l) => !l.startsWith('append assistant/chunk') && !l.startsWith('append agent/inbox'))
    expect(interesting).toMatchInlineSnapshot(`
      [
        "append turn/start",
        "append step/start",
        "append user/message",
        "append request/context",
        "append request/header",
        "flush",
        "MODEL CALLED",
        "append assistant/message",
        "append tool/call",
        "flush",
        "TOOL a",
        "append tool/result",
        "append tool/call",
        "flush",
        "TOOL b",
        "append tool/result",
        "append step/end",
        "append step/start",
        "append request/header",
        "flush",
        "MODEL CALLED",
        "append assistant/message",
        "append step/end",
        "append turn/end",
      ]
    `)
  })
})
