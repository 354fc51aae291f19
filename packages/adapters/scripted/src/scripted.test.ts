import { createHook } from 'node:async_hooks'
import { describe, it, expect } from 'vitest'
import { BosunError, createAdapter, createUserMessage, ModelError } from '@bosun/core'
import type { ModelChunk, ModelMessage, ModelRequest } from '@bosun/core'
import { expectCodeLines, expectConfigLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import definition, { scripted, scriptedOptionsSchema } from './index.js'
import type { ScriptedAdapter } from './index.js'

const user = (text: string, id = text): ModelMessage => createUserMessage(text, { id })

function request(messages: ModelMessage[] = [user('hi')], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: '', messages, tools: [], params: {}, ...extra }
}

async function collect(adapter: ScriptedAdapter, req = request(), signal = new AbortController().signal) {
  const chunks: ModelChunk[] = []
  let error: unknown
  try {
    for await (const chunk of adapter.stream(req, { signal })) chunks.push(chunk)
  } catch (e) {
    error = e
  }
  return { chunks, error }
}

async function chunksOf(adapter: ScriptedAdapter, req = request()): Promise<ModelChunk[]> {
  const { chunks, error } = await collect(adapter, req)
  if (error !== undefined) throw error
  return chunks
}

describe('scripted(): streaming', () => {
  it('splits text by chunkSize and finishes with stop', async () => {
    const model = scripted({ responses: [{ text: 'hello', chunkSize: 2, delayMs: 0 }] })
    expect(await chunksOf(model)).toEqual([
      { type: 'text-delta', text: 'he' },
      { type: 'text-delta', text: 'll' },
      { type: 'text-delta', text: 'o' },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('sends the whole text in one chunk by default and never cuts a surrogate pair', async () => {
    const model = scripted({ responses: [{ text: 'hello world' }, { text: 'a😀b', chunkSize: 2 }] })
    expect(await chunksOf(model)).toEqual([
      { type: 'text-delta', text: 'hello world' },
      { type: 'finish', reason: 'stop' },
    ])
    expect((await chunksOf(model)).map((c) => (c.type === 'text-delta' ? c.text : c.type))).toEqual(['a😀', 'b', 'finish'])
  })

  it('streams reasoning before text, both chunked, and honours finish', async () => {
    const model = scripted({ responses: [{ reasoning: 'thinking…', text: 'done', finish: 'max-tokens', chunkSize: 5 }] })
    expect(await chunksOf(model)).toEqual([
      { type: 'reasoning-delta', text: 'think' },
      { type: 'reasoning-delta', text: 'ing…' },
      { type: 'text-delta', text: 'done' },
      { type: 'finish', reason: 'max-tokens' },
    ])
  })

  it('streams tool calls as deltas that reassemble to the arguments JSON, finishing with tool-calls', async () => {
    const args = { path: 'a.txt', lines: [1, 2], deep: { ok: true } }
    const model = scripted({
      responses: [
        {
          text: 'reading',
          chunkSize: 4,
          toolCalls: [{ name: 'read', args }, { name: 'list', id: 'mine' }],
        },
      ],
    })
    const chunks = await chunksOf(model)
    expect(chunks[0]).toEqual({ type: 'text-delta', text: 'read' })
    expect(chunks[1]).toEqual({ type: 'text-delta', text: 'ing' })
    expect(chunks[2]).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_1_0', name: 'read' })
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
    const calls = new Map<number, { id?: string; name?: string; args: string; pieces: number }>()
    for (const chunk of chunks) {
      if (chunk.type !== 'tool-call-delta') continue
      const call = calls.get(chunk.index) ?? { args: '', pieces: 0 }
      if (chunk.id !== undefined) call.id = chunk.id
      if (chunk.name !== undefined) call.name = chunk.name
      if (chunk.argumentsDelta !== undefined) {
        expect(chunk.argumentsDelta.length).toBeLessThanOrEqual(4)
        call.args += chunk.argumentsDelta
        call.pieces++
      }
      calls.set(chunk.index, call)
    }
    expect(calls.get(0)).toMatchObject({ id: 'call_1_0', name: 'read', args: JSON.stringify(args) })
    expect(JSON.parse(calls.get(0)!.args)).toEqual(args)
    expect(calls.get(0)!.pieces).toBe(Math.ceil(JSON.stringify(args).length / 4))
    expect(calls.get(1)).toEqual({ id: 'mine', name: 'list', args: '{}', pieces: 1 })
  })

  it('numbers default call ids by request', async () => {
    const call = { toolCalls: [{ name: 't' }] }
    const model = scripted({ responses: [{ text: 'a' }, call] })
    await chunksOf(model)
    expect((await chunksOf(model))[0]).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_2_0', name: 't' })
  })

  it('sends usage before finish only when given', async () => {
    const usage = { inputTokens: 10, outputTokens: 2 }
    const model = scripted({ responses: [{ text: 'x', usage }, { text: 'y' }] })
    expect((await chunksOf(model)).slice(-2)).toEqual([
      { type: 'usage', usage },
      { type: 'finish', reason: 'stop' },
    ])
    expect((await chunksOf(model)).map((c) => c.type)).toEqual(['text-delta', 'finish'])
  })

  it('answers an empty response with a bare finish', async () => {
    expect(await chunksOf(scripted({ responses: [{}] }))).toEqual([{ type: 'finish', reason: 'stop' }])
  })

  it('plays the SPEC example in order', async () => {
    const model = scripted({
      responses: [
        { text: 'hello', chunkSize: 2, delayMs: 0 },
        { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
        { error: { status: 429, retryAfterMs: 10 } },
        { reasoning: 'thinking…', text: 'done', finish: 'max-tokens' },
      ],
    })
    expect(model.remaining).toBe(4)
    expect((await chunksOf(model)).length).toBe(4)
    expect(await chunksOf(model)).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_2_0', name: 'read' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":"a.txt"}' },
      { type: 'finish', reason: 'tool-calls' },
    ])
    const third = await collect(model)
    expect(third.chunks).toEqual([])
    expect(third.error).toBeInstanceOf(ModelError)
    expect(await chunksOf(model)).toEqual([
      { type: 'reasoning-delta', text: 'thinking…' },
      { type: 'text-delta', text: 'done' },
      { type: 'finish', reason: 'max-tokens' },
    ])
    expect(model.requests).toBe(4)
    expect(model.remaining).toBe(0)
  })
})

describe('scripted(): errors', () => {
  it('throws a retryable RATE_LIMIT ModelError for 429 with retryAfterMs', async () => {
    const { error } = await collect(scripted({ responses: [{ error: { status: 429, retryAfterMs: 10 } }] }))
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({
      code: 'RATE_LIMIT',
      status: 429,
      retryAfterMs: 10,
      retryable: true,
      message: 'Scripted model error: RATE_LIMIT (HTTP 429).',
    })
    expect(BosunError.is(error, 'RATE_LIMIT')).toBe(true)
  })

  it('a 413 is typed by its message, as a provider\'s is (ModelError.codeForStatus)', async () => {
    const model = scripted({ responses: [{ error: { status: 413 } }, { error: { status: 413, message: 'prompt is too long: 210000 tokens' } }, { error: { status: 413, message: 'Rate limit: tokens per minute (TPM)' } }] })
    expect((await collect(model)).error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect((await collect(model)).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false })
    expect((await collect(model)).error).toMatchObject({ code: 'RATE_LIMIT', retryable: true })
  })

  it('throws a non-retryable AUTH ModelError for 401', async () => {
    const { error } = await collect(scripted({ responses: [{ error: { status: 401, message: 'bad key' } }] }))
    expect(error).toMatchObject({ code: 'AUTH', status: 401, retryable: false, message: 'bad key' })
    expect((error as ModelError).retryAfterMs).toBeUndefined()
  })

  it('takes an explicit code and retryable, and defaults to SERVER', async () => {
    const model = scripted({
      responses: [{ error: { code: 'CONTEXT_WINDOW_EXCEEDED', status: 400 } }, { error: { retryable: false } }],
    })
    expect((await collect(model)).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400, retryable: false })
    const { error } = await collect(model)
    expect(error).toMatchObject({ code: 'SERVER', retryable: false, message: 'Scripted model error: SERVER.' })
    expect((error as ModelError).status).toBeUndefined()
  })

  it('streams text first, then fails mid-stream', async () => {
    const { chunks, error } = await collect(scripted({ responses: [{ text: 'partial', chunkSize: 4, error: { status: 503 } }] }))
    expect(chunks).toEqual([
      { type: 'text-delta', text: 'part' },
      { type: 'text-delta', text: 'ial' },
    ])
    expect(error).toMatchObject({ code: 'SERVER', status: 503, retryable: true })
  })

  it('surfaces a throwing response function from the iteration, not the call', async () => {
    const model = scripted({
      responses: [
        () => {
          throw new Error('boom')
        },
      ],
    })
    const iterable = model.stream(request(), { signal: new AbortController().signal })
    await expect(async () => {
      for await (const _ of iterable) void _
    }).rejects.toThrow('boom')
    expect(model.remaining).toBe(0)
  })
})

describe('scripted(): echo', () => {
  it('echoes the last user message when no responses are given', async () => {
    const history: ModelMessage[] = [
      user('first'),
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }] },
      user('second'),
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c2', name: 'read', arguments: '{}' }] },
      { role: 'tool', callId: 'c2', name: 'read', content: [{ type: 'text', text: 'file' }] },
    ]
    expect(await chunksOf(scripted(), request(history))).toEqual([
      { type: 'text-delta', text: 'echo: second' },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('joins the text blocks of the message and ignores images', async () => {
    const message = createUserMessage(
      [
        { type: 'text', text: 'look ' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'here' },
      ],
      { id: 'm' },
    )
    expect((await chunksOf(scripted(), request([message])))[0]).toEqual({ type: 'text-delta', text: 'echo: look here' })
  })

  it('echoes "echo: " without a user message', async () => {
    expect((await chunksOf(scripted({}), request([])))[0]).toEqual({ type: 'text-delta', text: 'echo: ' })
  })

  it('echoes once the responses run out, and resumes the script after push()', async () => {
    const model = scripted({ responses: [{ text: 'scripted' }] })
    expect((await chunksOf(model, request([user('a')])))[0]).toEqual({ type: 'text-delta', text: 'scripted' })
    expect((await chunksOf(model, request([user('a'), user('b')])))[0]).toEqual({ type: 'text-delta', text: 'echo: b' })
    expect(model.push({ text: 'more' }, () => ({ text: 'fn' }))).toBe(model)
    expect(model.remaining).toBe(2)
    expect((await chunksOf(model))[0]).toEqual({ type: 'text-delta', text: 'more' })
    expect((await chunksOf(model))[0]).toEqual({ type: 'text-delta', text: 'fn' })
    expect(model.requests).toBe(4)
  })

  it('does not read the history before the last user message', async () => {
    const last = user('last')
    // A long history whose only reachable message is the last one.
    const long = new Proxy(new Array<ModelMessage>(100_000), {
      get(target, key, receiver) {
        if (key === 'length') return 100_000
        if (key === '99999') return last
        if (typeof key === 'string' && /^\d+$/.test(key)) throw new Error(`read messages[${key}]`)
        return Reflect.get(target, key, receiver)
      },
    })
    expect((await chunksOf(scripted(), request(long)))[0]).toEqual({ type: 'text-delta', text: 'echo: last' })
  })
})

describe('scripted(): function responses and recording', () => {
  it('calls a response function with the request when it is consumed', async () => {
    const seen: string[] = []
    const model = scripted({
      responses: [
        (req) => {
          seen.push(req.system)
          return { text: `tools: ${req.tools.map((t) => t.name).join(',')}` }
        },
      ],
    })
    expect(seen).toEqual([])
    const tools = [{ name: 'read', description: 'Read', parameters: { type: 'object' } }]
    const chunks = await chunksOf(model, request([user('x')], { system: 'sys', tools }))
    expect(seen).toEqual(['sys'])
    expect(chunks[0]).toEqual({ type: 'text-delta', text: 'tools: read' })
  })

  it('validates what a response function returns', async () => {
    const model = scripted({ responses: [{ text: 'ok' }, () => ({ chunkSize: 0 })] })
    await chunksOf(model)
    const { error } = await collect(model)
    expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    expect((error as Error).message).toBe(
      'Invalid options for scripted() (the response the function at $.responses[1] returned):\n  - $.responses[1].chunkSize: must be >= 1 (found 0)',
    )
  })

  it('records requests only when asked', async () => {
    const plain = scripted()
    await chunksOf(plain)
    expect(plain.recorded).toEqual([])

    const model = scripted({ record: true })
    const messages = [user('a')]
    const tools = [{ name: 'read', description: 'Read', parameters: {} }]
    await chunksOf(model, request(messages, { system: 's', tools, params: { temperature: 0 }, model: 'm1' }))
    messages.push(user('b'))
    expect(model.recorded).toEqual([
      { system: 's', messages: [messages[0]], tools: ['read'], params: { temperature: 0 }, model: 'm1' },
    ])
  })
})

describe('scripted(): abort and delay', () => {
  it('waits delayMs before each chunk', async () => {
    const model = scripted({ responses: [{ text: 'abc', chunkSize: 1, delayMs: 15 }] })
    const started = performance.now()
    expect((await chunksOf(model)).length).toBe(4)
    expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 15 - 5)
  })

  it('throws ABORTED when aborted during a delay, and stops early', async () => {
    // A minute before the first chunk: the test ends (within its 20 s) only if the abort ends the wait.
    const model = scripted({ responses: [{ text: 'hello', chunkSize: 1, delayMs: 60_000 }] })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const { chunks, error } = await collect(model, request(), controller.signal)
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ code: 'ABORTED', message: 'The request was aborted.', retryable: false })
    expect(chunks).toEqual([])
  })

  it('clears its timer on abort', async () => {
    const mine: number[] = []
    const destroyed = new Set<number>()
    let watching = false
    const hook = createHook({
      init: (id, type) => void (watching && type === 'Timeout' && mine.push(id)),
      destroy: (id) => void destroyed.add(id),
    }).enable()
    try {
      const model = scripted({ responses: [{ text: 'slow', delayMs: 60_000 }] })
      const controller = new AbortController()
      watching = true
      const pending = collect(model, request(), controller.signal) // runs up to the first wait
      watching = false
      expect(mine).toHaveLength(1)
      controller.abort()
      expect((await pending).error).toMatchObject({ code: 'ABORTED' })
      await new Promise((resolve) => setImmediate(resolve))
      expect(destroyed.has(mine[0]!)).toBe(true)
    } finally {
      hook.disable()
    }
  })

  it('throws ABORTED mid-stream after some chunks were delivered', async () => {
    const model = scripted({ responses: [{ text: 'hello', chunkSize: 1, delayMs: 20 }] })
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    // Aborted once two chunks came, not by a 50 ms timer: on a busy machine that timer fired
    // before the first 20 ms delay ended (no chunk at all).
    const error = await (async () => {
      for await (const chunk of model.stream(request(), { signal: controller.signal })) {
        chunks.push(chunk)
        if (chunks.length === 2) controller.abort()
      }
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ABORTED' })
    expect(chunks).toEqual([{ type: 'text-delta', text: 'h' }, { type: 'text-delta', text: 'e' }])
  })

  it('throws ABORTED before any chunk when the signal is already aborted', async () => {
    for (const delayMs of [0, 10]) {
      const model = scripted({ responses: [{ text: 'hello', delayMs }] })
      const controller = new AbortController()
      controller.abort()
      const { chunks, error } = await collect(model, request(), controller.signal)
      expect(chunks).toEqual([])
      expect(error).toMatchObject({ code: 'ABORTED' })
      expect(model.remaining).toBe(0)
    }
  })

  it('throws ABORTED between chunks without delay', async () => {
    const model = scripted({ responses: [{ text: 'hello', chunkSize: 1 }] })
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    await expect(async () => {
      for await (const chunk of model.stream(request(), { signal: controller.signal })) {
        chunks.push(chunk)
        controller.abort()
      }
    }).rejects.toMatchObject({ code: 'ABORTED' })
    expect(chunks).toEqual([{ type: 'text-delta', text: 'h' }])
  })

  it('prefers ABORTED over a scripted error', async () => {
    const controller = new AbortController()
    controller.abort()
    const { error } = await collect(scripted({ responses: [{ error: { status: 500 } }] }), request(), controller.signal)
    expect(error).toMatchObject({ code: 'ABORTED' })
  })
})

describe('scripted(): invalid options', () => {
  const bad = (options: unknown) => () => scripted(options as never)
  /** The message `scripted()` throws for one problem. */
  const one = (line: string) => `Invalid options for scripted():\n  - ${line}`

  // Each rule is the schema's (scriptedOptionsSchema): the same line from code and from a config file.
  const cases: OptionsCase[] = [
    [{ responses: [{ text: 'a' }, {}, { chunkSize: 0 }] }, '$.responses[2].chunkSize: must be >= 1 (found 0)'],
    [{ responses: [{ chunkSize: 1.5 }] }, '$.responses[0].chunkSize: must be an integer (found 1.5)'],
    [{ responses: [{ finish: 'done' }] }, '$.responses[0].finish: must be one of "stop", "tool-calls", "max-tokens", "content-filter" (found "done")'],
    [{ responses: [{ delayMs: -1 }] }, '$.responses[0].delayMs: must be a number from 0 to 2147483647 (found -1)'],
    // A Node timer fires at once for a longer wait: the response would not be delayed at all.
    [{ responses: [{ delayMs: 2 ** 31 }] }, '$.responses[0].delayMs: must be a number from 0 to 2147483647 (found 2147483648)'],
    [{ responses: [{ text: 5 }] }, '$.responses[0].text: must be a string (found 5)'],
    [{ responses: [{ txt: 'a' }] }, '$.responses[0].txt: unknown key "txt" — did you mean "text"?'],
    [{ responses: [null] }, '$.responses[0]: must be an object (found null)'],
    [{ responses: {} }, '$.responses: must be an array (found an object)'],
    [{ record: 'yes' }, '$.record: must be a boolean (found "yes")'],
    [{ response: [] }, '$.response: unknown key "response" — did you mean "responses"?'],
    [{ responses: [{ toolCalls: [{ name: '' }] }] }, '$.responses[0].toolCalls[0].name: must not be empty (found "")'],
    [{ responses: [{ toolCalls: [{ args: {} }] }] }, '$.responses[0].toolCalls[0].name: is required'],
    [{ responses: [{ toolCalls: [{ name: 'a', args: [1] }] }] }, '$.responses[0].toolCalls[0].args: must be an object (found [1])'],
    [{ responses: [{ toolCalls: { name: 'a' } }] }, '$.responses[0].toolCalls: must be an array (found an object)'],
    [{ responses: [{ usage: { inputTokens: -1 } }] }, '$.responses[0].usage.inputTokens: must be >= 0 (found -1)'],
    [{ responses: [{ error: { status: 42 } }] }, '$.responses[0].error.status: must be an integer from 100 to 599 (found 42)'],
    [{ responses: [{ error: {}, finish: 'stop' }] }, '$.responses[0].finish: must be left out when "error" is given: a failing response has no finish (found "stop")'],
  ]

  it('throws INVALID_ARGUMENT naming each problem by its path, in the words of the schema', () => {
    expectCodeLines(scripted, 'scripted()', cases)
    expect(bad('x')).toThrow(one('$: must be an object (found "x")'))
    expect(bad({ responses: [{ error: { code: 'NOPE' } }] })).toThrow('$.responses[0].error.code: must be one of "AUTH"')
  })

  it('reports every problem at once', () => {
    expect(bad({ responses: [{ chunkSize: 0, text: 5 }], record: 1 })).toThrow(
      [
        'Invalid options for scripted():',
        '  - $.responses[0].text: must be a string (found 5)',
        '  - $.responses[0].chunkSize: must be >= 1 (found 0)',
        '  - $.record: must be a boolean (found 1)',
      ].join('\n'),
    )
  })

  it('a config file gets the same line for each rule, under its entry\'s path', async () => {
    await expectConfigLines(definition, cases)
  })

  it('refuses from code what JSON cannot hold where the schema cannot see it', () => {
    const notJson = 'must be JSON: a plain object, an array, a string, a finite number, a boolean or null'
    // The schema refuses Infinity where it says number; code, where it cannot see (a tool call's args).
    expect(bad({ responses: [{ delayMs: Number.POSITIVE_INFINITY }] })).toThrow(one('$.responses[0].delayMs: must be a number (found Infinity)'))
    expect(bad({ responses: [{ toolCalls: [{ name: 'a', args: { n: Number.POSITIVE_INFINITY } }] }] })).toThrow(one(`$.responses[0].toolCalls[0].args.n: ${notJson} (found Infinity)`))
    expect(bad({ responses: [{ toolCalls: [{ name: 'a', args: { n: Number.NaN } }] }] })).toThrow(one(`$.responses[0].toolCalls[0].args.n: ${notJson} (found NaN)`))
    expect(bad({ responses: [{ toolCalls: [{ name: 'a', args: { m: new Map() } }] }] })).toThrow(one(`$.responses[0].toolCalls[0].args.m: ${notJson} (found a Map object)`))
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(bad({ responses: [{ toolCalls: [{ name: 'a', args: cycle }] }] })).toThrow(one(`$.responses[0].toolCalls[0].args.self: ${notJson} (this value contains itself)`))
    // The same value twice is not a cycle.
    const shared = { a: 1 }
    expect(() => scripted({ responses: [{ toolCalls: [{ name: 'a', args: { x: shared, y: shared } }] }] })).not.toThrow()
  })

  it('takes functions as entries (code only) and checks the others around them', () => {
    expect(() => scripted({ responses: [() => ({ text: 'a' }), { text: 'b' }] })).not.toThrow()
    expect(bad({ responses: [() => ({}), { chunkSize: 0 }] })).toThrow(one('$.responses[1].chunkSize: must be >= 1 (found 0)'))
  })

  it('validates pushed responses with their position in the script', () => {
    const model = scripted({ responses: [{ text: 'a' }] })
    expect(() => model.push({ text: 'b' }, { delayMs: Number.POSITIVE_INFINITY })).toThrow(
      'Invalid options for scripted().push():\n  - $.responses[2].delayMs: must be a number (found Infinity)',
    )
    expect(() => model.push({ toolCalls: [{ name: 'a', args: { at: new Date(0) as never } }] })).toThrow(
      'Invalid options for scripted().push():\n  - $.responses[1].toolCalls[0].args.at: must be JSON: a plain object, an array, a string, a finite number, a boolean or null (found a Date object)',
    )
    expect(() => model.push({ chunkSize: 0 })).toThrow('Invalid options for scripted().push():\n  - $.responses[1].chunkSize: must be >= 1 (found 0)')
    expect(model.remaining).toBe(1)
  })
})

describe('default export (config files)', () => {
  const specExample = {
    responses: [
      { text: 'hello', chunkSize: 2, delayMs: 0 },
      { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
      { error: { status: 429, retryAfterMs: 10 } },
      { reasoning: 'thinking…', text: 'done', finish: 'max-tokens' },
    ],
  }

  it('is an adapter definition whose create works', async () => {
    expect(definition).toMatchObject({ kind: 'bosun-adapter', name: 'scripted', schema: scriptedOptionsSchema })
    const adapter = (await definition.create({ responses: [{ text: 'x' }] })) as ScriptedAdapter
    expect(adapter.name).toBe('scripted')
    expect(await chunksOf(adapter)).toEqual([
      { type: 'text-delta', text: 'x' },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('accepts the SPEC example and no options through createAdapter', async () => {
    const adapter = (await createAdapter(definition, specExample)) as ScriptedAdapter
    expect(adapter.remaining).toBe(4)
    expect((await chunksOf(adapter)).map((c) => (c.type === 'text-delta' ? c.text : c.type))).toEqual(['he', 'll', 'o', 'finish'])
    const echo = (await createAdapter(definition, undefined)) as ScriptedAdapter
    expect((await chunksOf(echo))[0]).toEqual({ type: 'text-delta', text: 'echo: hi' })
  })

  it('rejects bad configs through the schema', async () => {
    const rejects = async (options: unknown, line: string) => {
      const error = await createAdapter(definition, options).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
      expect((error as Error).message).toContain(line)
    }
    await rejects({ responses: [{ chunkSize: 0 }] }, '$.responses[0].chunkSize: must be >= 1 (found 0)')
    await rejects({ responses: [{ finish: 'done' }] }, '$.responses[0].finish: must be one of "stop"')
    await rejects({ responses: [{ txt: 'a' }] }, '$.responses[0].txt: unknown key "txt" — did you mean "text"?')
    await rejects({ respones: [] }, '$.respones: unknown key "respones" — did you mean "responses"?')
    await rejects({ responses: [{ toolCalls: [{ args: {} }] }] }, '$.responses[0].toolCalls[0].name: is required')
    await rejects({ responses: [{ error: { code: 'NOPE' } }] }, '$.responses[0].error.code: must be one of "AUTH"')
    await rejects({ responses: [{ usage: { inputTokens: 1.5 } }] }, '$.responses[0].usage.inputTokens: must be an integer (found 1.5)')
  })
})
