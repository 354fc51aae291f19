// The adapter against a real HTTP server: recorded Anthropic streams (as recorded and re-cut at
// random byte positions), constructed streams, typed errors, abort, laziness and headers.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ModelChunk, ModelError } from '@bosun/core'
import { DEADLINE_CLOCK, pending, pull, pullUntil } from '../../openai/src/testing/by-hand.js'
import { ask, collect, model, SECRET, serverAt, textOf, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, fixture, frames, recut, status, stream, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

/** Byte positions from a small deterministic generator, so that a failing cut can be replayed. */
function randomCuts(seed: number, length: number, count = 40): number[] {
  let state = seed
  const next = (): number => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31)
  return Array.from({ length: count }, () => next() % length)
}

/** Replays a fixture as recorded, then re-cut with five seeds; every replay must give the same chunks. */
async function replay(name: string): Promise<ModelChunk[]> {
  const list = fixture(name)
  const length = Buffer.byteLength(frames(list).join(''))
  server.reply(events(list))
  for (let seed = 1; seed <= 5; seed++) server.reply(stream(recut(frames(list), randomCuts(seed, length))))
  const recorded = await collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))
  expect(recorded.error).toBeUndefined()
  for (let seed = 1; seed <= 5; seed++) {
    const again = await collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))
    expect(again).toEqual(recorded)
  }
  return recorded.chunks
}

const run = (options: Parameters<typeof model>[1] = {}, signal = new AbortController().signal) =>
  collect(model(server.baseURL, options).stream(ask(), { signal }))

describe('recorded streams', () => {
  it('streams text deltas, then usage from message_delta and the stop finish (pings ignored)', async () => {
    const chunks = await replay('anthropic-text')
    expect(textOf(chunks)).toBe("Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?")
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 12, cachedInputTokens: 0, outputTokens: 30 } },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('streams thinking as reasoning deltas of provider anthropic, the signature in its own delta', async () => {
    const chunks = await replay('anthropic-clear-thinking.1')
    const reasoning = chunks.filter((chunk) => chunk.type === 'reasoning-delta')
    expect(reasoning.map((chunk) => chunk.text).join('')).toBe('The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185')
    expect(reasoning.every((chunk) => chunk.provider === 'anthropic')).toBe(true)
    expect(reasoning.at(-1)).toEqual({
      type: 'reasoning-delta',
      text: '',
      signature: (fixture('anthropic-clear-thinking.1').find((event) => (event.delta as { type?: string })?.type === 'signature_delta')!.delta as { signature: string }).signature,
      provider: 'anthropic',
    })
    expect(textOf(chunks)).toBe('925 ÷ 5 = 185')
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('streams a tool_use as tool-call deltas: id and name first, then input_json_delta pieces', async () => {
    expect(await replay('anthropic-json-tool.1')).toMatchInlineSnapshot(`
      [
        {
          "id": "toolu_01KFbKqPYSuAKujiL6mTfzYA",
          "index": 0,
          "name": "json",
          "type": "tool-call-delta",
        },
        {
          "argumentsDelta": "{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]",
          "index": 0,
          "type": "tool-call-delta",
        },
        {
          "argumentsDelta": "}",
          "index": 0,
          "type": "tool-call-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 849,
            "outputTokens": 47,
          },
        },
        {
          "reason": "tool-calls",
          "type": "finish",
        },
      ]
    `)
  })

  it('gives a tool_use without input deltas the arguments {}', async () => {
    const chunks = await replay('anthropic-tool-no-args')
    expect(textOf(chunks)).toBe("I'll update the issue list for you.")
    expect(chunks.filter((chunk) => chunk.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
    ])
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('maps the refusal stop reason to content-filter, its explanation sent as text', async () => {
    expect(await replay('anthropic-refusal')).toEqual([
      { type: 'text-delta', text: "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy." },
      { type: 'usage', usage: { inputTokens: 18, cachedInputTokens: 0, outputTokens: 5 } },
      { type: 'finish', reason: 'content-filter' },
    ])
  })

  it('takes input tokens from message_delta when it repeats them', async () => {
    const chunks = await replay('anthropic-message-delta-input-tokens')
    expect(textOf(chunks)).toBe('pong')
    expect(chunks.slice(-2)).toEqual([{ type: 'usage', usage: { inputTokens: 61, outputTokens: 2 } }, { type: 'finish', reason: 'stop' }])
  })
})

const start = (usage: Record<string, number> = { input_tokens: 5, output_tokens: 1 }) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-test', stop_reason: null, usage },
})
const blockStart = (index: number, content_block: Record<string, unknown>) => ({ type: 'content_block_start', index, content_block })
const blockDelta = (index: number, delta: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta })
const blockStop = (index: number) => ({ type: 'content_block_stop', index })
const end = (stop_reason: string, usage: Record<string, number> = { output_tokens: 9 }) => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage },
  { type: 'message_stop' },
]
const textStream = (text: string) => [start(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text }), blockStop(0), ...end('end_turn')]

describe('constructed streams', () => {
  it('keys parallel tool_use blocks by their index, numbering tool calls in the order they start', async () => {
    server.reply(events([
      start(),
      blockStart(0, { type: 'text', text: '' }),
      blockDelta(0, { type: 'text_delta', text: 'Both.' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'toolu_a', name: 'read', input: {} }),
      blockStart(2, { type: 'tool_use', id: 'toolu_b', name: 'list', input: {} }),
      blockDelta(2, { type: 'input_json_delta', partial_json: '{"dir":' }),
      blockDelta(1, { type: 'input_json_delta', partial_json: '{"path":"a.txt"}' }),
      blockDelta(2, { type: 'input_json_delta', partial_json: '"src"}' }),
      blockStop(1),
      blockStop(2),
      blockStart(3, { type: 'tool_use', id: 'toolu_c', name: 'now', input: {} }),
      blockStop(3),
      ...end('tool_use'),
    ]))
    const { chunks, error } = await run()
    expect(error).toBeUndefined()
    const calls = new Map<number, { id?: string; name?: string; arguments: string }>()
    for (const chunk of chunks) {
      if (chunk.type !== 'tool-call-delta') continue
      const call = calls.get(chunk.index) ?? { arguments: '' }
      calls.set(chunk.index, { ...call, ...(chunk.id ? { id: chunk.id, name: chunk.name! } : {}), arguments: call.arguments + (chunk.argumentsDelta ?? '') })
    }
    expect([...calls.entries()]).toEqual([
      [0, { id: 'toolu_a', name: 'read', arguments: '{"path":"a.txt"}' }],
      [1, { id: 'toolu_b', name: 'list', arguments: '{"dir":"src"}' }],
      [2, { id: 'toolu_c', name: 'now', arguments: '{}' }],
    ])
    expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('decodes a UTF-8 character split across two TCP writes', async () => {
    const text = 'Grüße 👋 世界'
    const pieces = frames(textStream(text))
    const bytes = Buffer.from(pieces.join(''))
    const emoji = bytes.indexOf(Buffer.from('👋'))
    server.reply(stream(recut(pieces, [emoji + 2, bytes.indexOf(Buffer.from('界')) + 1]), { delayMs: 20 }))
    const { chunks, error } = await run()
    expect(error).toBeUndefined()
    expect(textOf(chunks)).toBe(text)
  })

  it('ignores pings, unknown events, unknown blocks and unknown deltas', async () => {
    server.reply(events([
      start(),
      { type: 'ping' },
      { type: 'some_future_event', data: 1 },
      blockStart(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      blockDelta(0, { type: 'input_json_delta', partial_json: '{"query":"x"}' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: 'Hi' }),
      blockDelta(1, { type: 'citations_delta', citation: {} }),
      blockStop(1),
      ...end('end_turn'),
    ]))
    expect(await run()).toEqual({
      chunks: [
        { type: 'text-delta', text: 'Hi' },
        { type: 'usage', usage: { inputTokens: 5, outputTokens: 9 } },
        { type: 'finish', reason: 'stop' },
      ],
    })
  })

  it('keeps a redacted_thinking block as reasoning with its data as the signature, apart from the thinking before it', async () => {
    server.reply(events([
      start(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      blockDelta(0, { type: 'thinking_delta', thinking: 'Hmm.' }),
      blockDelta(0, { type: 'signature_delta', signature: 'sig-1' }),
      blockStop(0),
      blockStart(1, { type: 'redacted_thinking', data: 'opaque-data' }),
      blockStop(1),
      blockStart(2, { type: 'text', text: '' }),
      blockDelta(2, { type: 'text_delta', text: 'Done.' }),
      blockStop(2),
      ...end('end_turn'),
    ]))
    const { chunks } = await run()
    expect(chunks.slice(0, 5)).toEqual([
      { type: 'reasoning-delta', text: 'Hmm.', provider: 'anthropic' },
      { type: 'reasoning-delta', text: '', signature: 'sig-1', provider: 'anthropic' },
      { type: 'text-delta', text: '' },
      { type: 'reasoning-delta', text: '', signature: 'opaque-data', provider: 'anthropic' },
      { type: 'text-delta', text: 'Done.' },
    ])
  })

  it('sends the usage of message_start at message_stop when no message_delta came', async () => {
    server.reply(events([start(), ...textStream('a').slice(1, 4), { type: 'message_stop' }]))
    expect((await run()).chunks).toEqual([
      { type: 'text-delta', text: 'a' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 1 } },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('maps every stop reason and counts cached prompt tokens into the input tokens', async () => {
    const reasons = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool-calls', max_tokens: 'max-tokens', refusal: 'content-filter', brand_new: 'stop' }
    for (const reason of Object.keys(reasons)) {
      server.reply(events([start({ input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }), ...end(reason)]))
    }
    const seen: string[] = []
    for (const _ of Object.keys(reasons)) {
      const { chunks } = await run()
      expect(chunks[0]).toEqual({ type: 'usage', usage: { inputTokens: 123, cachedInputTokens: 100, outputTokens: 9 } })
      seen.push((chunks.at(-1) as { reason: string }).reason)
    }
    expect(seen).toEqual(Object.values(reasons))
  })

  it('a message_delta that repeats input_tokens without the cache fields keeps the cached part', async () => {
    server.reply(events([start({ input_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 }), ...end('end_turn', { input_tokens: 3, output_tokens: 9 })]))
    const { chunks } = await run()
    expect(chunks.filter((chunk) => chunk.type === 'usage').at(-1)).toEqual({ type: 'usage', usage: { inputTokens: 123, cachedInputTokens: 100, outputTokens: 9 } })
  })
})

describe('errors', () => {
  const errorBody = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message } })

  it('types a 429 as RATE_LIMIT, retryable, with retryAfterMs from retry-after when given', async () => {
    server.reply(status(429, errorBody('rate_limit_error', 'Number of requests has exceeded your rate limit'), { 'retry-after': '3' }))
    server.reply(status(429, errorBody('rate_limit_error', 'Slow down')))
    const first = (await run()).error!
    expect([first.code, first.status, first.retryable, first.retryAfterMs, first.message]).toEqual([
      'RATE_LIMIT', 429, true, 3000, `${serverAt(server.baseURL)} answered HTTP 429: Number of requests has exceeded your rate limit`,
    ])
    const second = (await run()).error!
    expect([second.code, second.retryable, second.retryAfterMs]).toEqual(['RATE_LIMIT', true, undefined])
  })

  it('types a 401 as AUTH, not retryable, with a hint and without the key', async () => {
    server.reply(status(401, errorBody('authentication_error', 'invalid x-api-key')))
    const { error } = await run()
    expect([error!.code, error!.status, error!.retryable]).toEqual(['AUTH', 401, false])
    expect(error!.message).toContain('apiKeyEnv')
    expect(error!.message).not.toContain(SECRET)
  })

  it('types a 400 "prompt is too long" as CONTEXT_WINDOW_EXCEEDED and other 400s as INVALID_REQUEST', async () => {
    server.reply(status(400, errorBody('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum')))
    server.reply(status(400, errorBody('invalid_request_error', 'messages: roles must alternate')))
    expect((await run()).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400, retryable: false })
    expect((await run()).error).toMatchObject({ code: 'INVALID_REQUEST', status: 400, retryable: false })
  })

  it('types a 529 (overloaded) as SERVER, retryable', async () => {
    server.reply(status(529, errorBody('overloaded_error', 'Overloaded')))
    expect((await run()).error).toMatchObject({ code: 'SERVER', status: 529, retryable: true, message: `${serverAt(server.baseURL)} answered HTTP 529: Overloaded` })
  })

  it('types in-stream error events after what was delivered: overloaded_error is SERVER retryable', async () => {
    const streamError = (type: string, message: string) => ({ type: 'error', error: { type, message } })
    const partial = [start(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 'Half an ans' })]
    server.reply(events([...partial, streamError('overloaded_error', 'Overloaded')]))
    server.reply(events([start(), streamError('rate_limit_error', 'Too fast')]))
    server.reply(events([start(), streamError('invalid_request_error', 'prompt is too long')]))
    server.reply(events([start(), streamError('api_error', 'Internal')]))
    const overloaded = await run()
    expect(textOf(overloaded.chunks)).toBe('Half an ans')
    expect(overloaded.error).toMatchObject({ code: 'SERVER', retryable: true, message: `${serverAt(server.baseURL)} reported overloaded_error in the stream: Overloaded (as HTTP 529).` })
    expect((await run()).error).toMatchObject({ code: 'RATE_LIMIT', retryable: true })
    expect((await run()).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false })
    expect((await run()).error).toMatchObject({ code: 'SERVER', retryable: true })
  })

  it('types a connection reset mid-stream, and a refused connection, as TRANSPORT (retryable)', async () => {
    server.reply(stream(frames(textStream('hello')).slice(0, 3), { then: 'reset' }))
    const reset = await run()
    expect(textOf(reset.chunks)).toBe('hello')
    expect(reset.error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    // Port 0: nothing can listen on it (binding 0 asks for any free port), so the connection is
    // refused every time — a port a closed server had could be taken by another process meanwhile.
    const refused = await collect(model('http://127.0.0.1:0').stream(ask(), { signal: new AbortController().signal }))
    expect(refused.error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    expect(refused.error!.message).toMatch(/^Nothing answered at http:\/\/127\.0\.0\.1:\d+: the connection was refused \(fetch failed \(.*ECONNREFUSED/)
  })

  it('fails a stalled stream with TIMEOUT after idleTimeoutMs, and closes the connection', async () => {
    // The deadline's clock is faked and moved by the test (as in deadlines.test.ts): on the real
    // clock a busy machine let the 100 ms pass before 'hello' arrived, and the test saw no text.
    // One exchange on the real clock first: fetch's own timers are made then, not on the fake one.
    server.reply(events(textStream('warm')))
    expect((await run()).error).toBeUndefined()
    vi.useFakeTimers(DEADLINE_CLOCK)
    try {
      server.reply(stream(frames(textStream('hello')).slice(0, 3), { then: 'stall' }))
      const pulled = pull(model(server.baseURL, { idleTimeoutMs: 100 }), ask())
      await pullUntil(pulled, (chunks) => textOf([...chunks]) === 'hello')
      const stalled = pulled.next()
      expect(await pending(stalled), 'ended before idleTimeoutMs').toBe(true)
      await vi.advanceTimersByTimeAsync(100)
      const ended = await stalled
      expect(ended).toMatchObject({ error: { code: 'TIMEOUT', retryable: true } })
      expect((ended as { error: Error }).error.message).toMatch(`${serverAt(server.baseURL)} sent no content (text, reasoning or a tool call) for 100 ms`)
      expect(await server.requests[1]!.closed).toEqual({ ended: false })
    } finally {
      vi.useRealTimers()
    }
  })

  it('fails a server that never answers with TIMEOUT too', async () => {
    server.reply(() => new Promise<void>(() => {}))
    expect((await run({ idleTimeoutMs: 100 })).error).toMatchObject({ code: 'TIMEOUT' })
  })

  it('types malformed payloads as MALFORMED_RESPONSE', async () => {
    server.reply(stream([...frames([start()]), 'event: content_block_start\ndata: {"type":"content_block_start","index":0,\n\n']))
    server.reply(events([start(), blockDelta(0, { type: 'text_delta', text: 'x' })]))
    server.reply(events([start(), blockStart(0, { type: 'text', text: '' }), blockDelta(0, { type: 'text_delta', text: 42 })]))
    server.reply(stream(['data: [1,2]\n\n']))
    server.reply(status(200, '{"id":"msg_1","content":[]}'))
    const messages: string[] = []
    for (let i = 0; i < 5; i++) {
      const { error } = await run()
      expect(error).toMatchObject({ code: 'MALFORMED_RESPONSE', retryable: false })
      messages.push(error!.message)
    }
    expect(messages.map((message) => message.replace(serverAt(server.baseURL), '<server>'))).toMatchInlineSnapshot(`
      [
        "<server> sent an event whose data is not JSON: {"type":"content_block_start","index":0,",
        "<server> sent a malformed stream event: a delta for content block 0, which was never started.",
        "<server> sent a malformed stream event: text_delta text is not a string.",
        "<server> sent an event without a "type": [1,2]",
        "<server> answered with application/json instead of an event stream: {"id":"msg_1","content":[]}",
      ]
    `)
  })

  it('types a stream that ends before its stop_reason as TRANSPORT, and an empty one as EMPTY_RESPONSE', async () => {
    server.reply(events(textStream('hello').slice(0, -2)))
    server.reply(stream([]))
    expect((await run()).error).toMatchObject({ code: 'TRANSPORT', retryable: true, message: `${serverAt(server.baseURL)} closed the stream before the message was complete (no stop_reason): the response may be incomplete.` })
    expect((await run()).error).toMatchObject({ code: 'EMPTY_RESPONSE', retryable: true })
  })

  it('never puts the key in an error, even when a proxy echoes it back', async () => {
    server.reply(status(400, errorBody('invalid_request_error', `bad header x-api-key: ${SECRET}`)))
    const { error } = await run()
    expect(error!.message).toBe(`${serverAt(server.baseURL)} answered HTTP 400: bad header x-api-key: [redacted]`)
  })

  it('redacts a key read with surrounding whitespace (it is sent trimmed), and never keeps a cause that quotes it', async () => {
    process.env.BOSUN_TEST_ANTHROPIC_KEY_PADDED = `  ${SECRET}\n`
    server.reply(status(401, errorBody('authentication_error', `invalid x-api-key ${SECRET}`)))
    const padded = (await run({ apiKeyEnv: 'BOSUN_TEST_ANTHROPIC_KEY_PADDED' })).error!
    expect(padded.message).toBe(`${serverAt(server.baseURL)} answered HTTP 401: invalid x-api-key [redacted] (check that the environment variable BOSUN_TEST_ANTHROPIC_KEY_PADDED, named by apiKeyEnv, holds a valid key for ${server.baseURL})`)
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe(SECRET)
    // A key with a line break inside (Headers would refuse it, quoting it): refused when the
    // adapter is made, without it (key-not-sendable.test.ts).
    process.env.BOSUN_TEST_ANTHROPIC_KEY_BROKEN = `${SECRET}\nsk-ant-other`
    let broken: ModelError | undefined
    try {
      model(server.baseURL, { apiKeyEnv: 'BOSUN_TEST_ANTHROPIC_KEY_BROKEN' })
    } catch (error) {
      broken = error as ModelError
    }
    expect(broken?.code).toBe('AUTH')
    expect(broken?.cause).toBeUndefined()
    expect(`${broken?.message} ${String(broken?.stack)}`).not.toContain(SECRET)
  })

  it('types a 200 JSON error body (a gateway answering for Anthropic) like the same error in a stream', async () => {
    server.reply(status(200, errorBody('overloaded_error', 'Overloaded')))
    expect((await run()).error).toMatchObject({ code: 'SERVER', retryable: true, message: `${serverAt(server.baseURL)} reported overloaded_error in a 200 JSON body: Overloaded (as HTTP 529).` })
  })

  it('takes a last event the server did not close with a blank line, if it is complete', async () => {
    const list = textStream('hello')
    const delta = JSON.stringify(list.at(-2))
    server.reply(stream([...frames(list.slice(0, -2)), `event: message_delta\ndata: ${delta}`]))
    server.reply(stream([...frames(list.slice(0, -2)), `event: message_delta\ndata: ${delta.slice(0, 30)}`]))
    const whole = await run()
    expect(whole.error).toBeUndefined()
    expect(textOf(whole.chunks)).toBe('hello')
    expect(whole.chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
    expect((await run()).error).toMatchObject({ code: 'TRANSPORT', message: `${serverAt(server.baseURL)} closed the stream before the message was complete (no stop_reason): the response may be incomplete.` })
  })
})

describe('abort and laziness', () => {
  it('aborting mid-stream throws ABORTED and closes the socket the server wrote to', async () => {
    server.reply(stream(frames(textStream('hello')).slice(0, 3), { then: 'stall' }))
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    const error = await (async () => {
      for await (const chunk of model(server.baseURL).stream(ask(), { signal: controller.signal })) {
        chunks.push(chunk)
        if (chunk.type === 'text-delta') controller.abort('user pressed Ctrl+C')
      }
    })().catch((e: unknown) => e)
    expect(textOf(chunks)).toBe('hello')
    expect(error).toMatchObject({ code: 'ABORTED', retryable: false, message: `The request to the server at ${new URL(server.baseURL).host} was aborted.` })
    expect(await server.requests[0]!.closed).toEqual({ ended: false })
  })

  it('an abort while waiting for the next event ends the wait at once', async () => {
    server.reply(stream(frames(textStream('hello')).slice(0, 3), { then: 'stall' }))
    const controller = new AbortController()
    const iterator = model(server.baseURL).stream(ask(), { signal: controller.signal })[Symbol.asyncIterator]()
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'text-delta', text: 'hello' } })
    const pending = iterator.next()
    setTimeout(() => controller.abort(), 20)
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' })
    expect(await server.requests[0]!.closed).toEqual({ ended: false })
  })

  it('sends nothing until the stream is iterated, and nothing at all when already aborted', async () => {
    server.reply(events(textStream('a')))
    const adapter = model(server.baseURL)
    const lazy = adapter.stream(ask(), { signal: new AbortController().signal })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(server.requests).toHaveLength(0)
    const aborted = AbortSignal.abort()
    expect((await collect(adapter.stream(ask(), { signal: aborted }))).error).toMatchObject({ code: 'ABORTED' })
    expect(server.requests).toHaveLength(0)
    expect(textOf((await collect(lazy)).chunks)).toBe('a')
    expect(server.requests).toHaveLength(1)
  })
})

describe('the HTTP request', () => {
  it('posts to <baseURL>/v1/messages with the key, the version, JSON and the configured headers', async () => {
    server.reply(events(textStream('a')))
    const adapter = model(`${server.baseURL}/`, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'X-Api-Key': 'not-this-one' } })
    await collect(adapter.stream(ask(), { signal: new AbortController().signal }))
    const [request] = server.requests
    expect([request!.method, request!.path]).toEqual(['POST', '/v1/messages'])
    expect(request!.headers).toMatchObject({
      'x-api-key': SECRET,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
    })
  })

  it('keeps the key off the adapter object', () => {
    const adapter = model(server.baseURL)
    expect(JSON.stringify(adapter)).toBe('{"name":"anthropic","model":"claude-test"}')
    expect(Object.values(adapter)).not.toContain(SECRET)
  })
})
