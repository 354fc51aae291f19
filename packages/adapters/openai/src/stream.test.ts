import { BosunError } from '@bosun/core'
import type { ModelChunk } from '@bosun/core'
import fc from 'fast-check'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { openai } from './adapter.js'
import { DEADLINE_CLOCK, pending, pull, pullUntil } from './testing/by-hand.js'
import { assemble, deltaText, request, run } from './testing/helpers.js'
import { chunk, fixture, raw, reset, sse, sseBytes, stall, startServer, status, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const model = (extra: Partial<Parameters<typeof openai>[0]> = {}) =>
  openai({ baseURL: server.url, model: 'test-model', provider: 'deepseek', ...extra })

describe('streams as recorded', () => {
  it('plain text with a usage-only final chunk (OpenAI)', async () => {
    const payloads = fixture('openai-text')
    server.reply(sse(payloads))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    const result = assemble(chunks)
    expect(result.text).toBe(deltaText(payloads, 'content'))
    expect(result.text.startsWith('**Holiday Name:** Harmony Day')).toBe(true)
    expect(chunks.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 16, outputTokens: 300, reasoningTokens: 0, cachedInputTokens: 0 } },
      { type: 'finish', reason: 'stop' },
    ])
    expect(chunks.filter((c) => c.type === 'text-delta').every((c) => (c as { text: string }).text !== '')).toBe(true)
  })

  it('reasoning, then text (DeepSeek reasoner)', async () => {
    const payloads = fixture('deepseek-reasoning')
    server.reply(sse(payloads))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    const result = assemble(chunks)
    expect(result.reasoning).toBe(deltaText(payloads, 'reasoning_content'))
    expect(result.reasoning.startsWith('We need to count')).toBe(true)
    expect(result.text).toBe(deltaText(payloads, 'content'))
    expect(result.providers).toEqual(['deepseek'])
    const firstText = chunks.findIndex((c) => c.type === 'text-delta')
    expect(chunks.slice(firstText).some((c) => c.type === 'reasoning-delta')).toBe(false)
    expect(result.usage).toEqual({ inputTokens: 18, outputTokens: 219, reasoningTokens: 205, cachedInputTokens: 0 })
    expect(result.finish).toBe('stop')
  })

  it('finish_reason length becomes max-tokens (DeepSeek text)', async () => {
    server.reply(sse(fixture('deepseek-text')))
    const { chunks } = await run(model())
    expect(assemble(chunks).finish).toBe('max-tokens')
  })

  it('a tool call whose arguments arrive in many pieces (DeepSeek)', async () => {
    server.reply(sse(fixture('deepseek-tool-call')))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    const result = assemble(chunks)
    expect(result.calls).toEqual([{ id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', arguments: '{"location": "San Francisco"}' }])
    const deltas = chunks.filter((c) => c.type === 'tool-call-delta')
    expect(deltas[0]).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather' })
    expect(deltas.length).toBeGreaterThan(3)
    expect(result.finish).toBe('tool-calls')
    expect(result.usage).toEqual({ inputTokens: 339, outputTokens: 83, reasoningTokens: 39, cachedInputTokens: 320 })
  })

  it('a tool call in one delta, reasoning first (xAI)', async () => {
    server.reply(sse(fixture('xai-tool-call')))
    const result = assemble((await run(model())).chunks)
    expect(result.calls).toEqual([{ id: 'call_79382389', name: 'weather', arguments: '{"location":"San Francisco"}' }])
    expect(result.reasoning.startsWith('First, the user is asking about the weather')).toBe(true)
    expect(result.finish).toBe('tool-calls')
    expect(result.usage).toMatchObject({ inputTokens: 307, outputTokens: 26, reasoningTokens: 227 })
  })
})

describe('re-chunked streams', () => {
  for (const name of ['openai-text', 'deepseek-reasoning', 'deepseek-tool-call', 'xai-tool-call']) {
    it(`${name}: the same chunks at any byte boundaries`, async () => {
      const payloads = fixture(name)
      server.reply(sse(payloads))
      const reference = (await run(model())).chunks
      const size = sseBytes(payloads).length
      await fc.assert(
        fc.asyncProperty(fc.array(fc.integer({ min: 1, max: size - 1 }), { maxLength: 60 }), async (cuts) => {
          server.reply(sse(payloads, { cuts }))
          const { chunks, error } = await run(model())
          expect(error).toBeUndefined()
          expect(chunks).toEqual(reference)
        }),
        { numRuns: 15 },
      )
    })
  }

  it('a UTF-8 character split across TCP writes stays whole', async () => {
    const text = 'Grüße, 日本語 🚀 — ok'
    const bytes = sseBytes([chunk({ role: 'assistant', content: text }), chunk({}, 'stop')])
    // One write per byte: every multi-byte character is cut inside.
    const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1))
    server.reply(raw(pieces))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    expect(assemble(chunks).text).toBe(text)
  })
})

describe('tool calls', () => {
  it('several parallel calls, interleaved, arguments cut mid-token, names sent once', async () => {
    const payloads = [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'list', arguments: '{"di' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"a.t' } }, { index: 1, function: { arguments: 'r":"/"}' } }] }),
      chunk({ tool_calls: [{ index: 2, id: 'call_c', type: 'function', function: { name: 'now', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'xt"}' } }] }),
      chunk({}, 'tool_calls'),
    ]
    server.reply(sse(payloads))
    const result = assemble((await run(model())).chunks)
    expect(result.calls).toEqual([
      { id: 'call_a', name: 'read', arguments: '{"path":"a.txt"}' },
      { id: 'call_b', name: 'list', arguments: '{"dir":"/"}' },
      { id: 'call_c', name: 'now', arguments: '{}' },
    ])
    expect(result.finish).toBe('tool-calls')
  })

  it('servers that repeat the name, reuse index 0 for new ids, or omit the index', async () => {
    const payloads = [
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'read', arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'read', arguments: '"x"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_2', function: { name: 'read', arguments: '{"path":"y"}' } }] }),
      chunk({ tool_calls: [{ id: 'call_3', function: { name: 'now', arguments: { utc: true } } }] }),
      chunk({}, 'tool_calls'),
    ]
    server.reply(sse(payloads))
    expect(assemble((await run(model())).chunks).calls).toEqual([
      { id: 'call_1', name: 'read', arguments: '{"path":"x"}' },
      { id: 'call_2', name: 'read', arguments: '{"path":"y"}' },
      { id: 'call_3', name: 'now', arguments: '{"utc":true}' },
    ])
  })
})

describe('end of stream', () => {
  it('ignores anything after [DONE] and closes the connection', async () => {
    const bytes = Buffer.concat([sseBytes([chunk({ content: 'hi' }, 'stop')]), Buffer.from(`data: ${chunk({ content: 'late' })}\n\n`)])
    server.reply(raw([bytes]))
    const { chunks } = await run(model())
    expect(chunks).toEqual([{ type: 'text-delta', text: 'hi' }, { type: 'finish', reason: 'stop' }])
  })

  it('a stream without [DONE] that gave a finish reason is complete', async () => {
    server.reply(sse([chunk({ content: 'hi' }, 'stop')], { done: false }))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    expect(assemble(chunks)).toMatchObject({ text: 'hi', finish: 'stop' })
  })

  it('a body that ends with neither finish reason nor [DONE] is TRANSPORT (retryable)', async () => {
    server.reply(sse([chunk({ content: 'half an ans' })], { done: false }))
    const { chunks, error } = await run(model())
    expect(assemble(chunks).text).toBe('half an ans')
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
  })

  it('a last event not closed by a blank line is taken if it is complete JSON, left out if cut off', async () => {
    server.reply(raw([Buffer.from(`data: ${chunk({ content: 'hi' })}\n\ndata: ${chunk({}, 'stop')}\n`)]))
    server.reply(raw([Buffer.from(`data: ${chunk({ content: 'hi' })}\n\ndata: ${chunk({}, 'stop').slice(0, 30)}`)]))
    const whole = await run(model())
    expect(whole.error).toBeUndefined()
    expect(assemble(whole.chunks)).toMatchObject({ text: 'hi', finish: 'stop' })
    const cut = await run(model())
    expect([cut.error?.code, cut.error?.retryable]).toEqual(['TRANSPORT', true])
  })

  it('[DONE] with nothing before it is EMPTY_RESPONSE', async () => {
    server.reply(sse([]))
    const { error } = await run(model())
    expect([error?.code, error?.retryable]).toEqual(['EMPTY_RESPONSE', true])
  })

  it('unknown finish reasons count as stop; content_filter maps', async () => {
    server.reply(sse([chunk({ content: 'a' }, 'eos')]), sse([chunk({ content: 'b' }, 'content_filter')]))
    expect(assemble((await run(model())).chunks).finish).toBe('stop')
    expect(assemble((await run(model())).chunks).finish).toBe('content-filter')
  })

  it('finish_reason "error" without an error object (OpenRouter, an upstream failure) is a retryable SERVER error, not a stop', async () => {
    server.reply(sse([chunk({ content: 'half' }), chunk({}, 'error')]))
    const { chunks, error } = await run(model())
    expect(assemble(chunks).text).toBe('half')
    expect([error?.code, error?.retryable]).toEqual(['SERVER', true])
    expect(error?.message).toContain('finish_reason "error"')
  })

  it('a server that ignored stream: true and answered JSON', async () => {
    const body = JSON.stringify({
      choices: [{ index: 0, message: { role: 'assistant', content: 'whole', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'now', arguments: '{}' } }] }, finish_reason: 'tool_calls' }],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    })
    server.reply(status(200, body))
    expect(assemble((await run(model())).chunks)).toEqual({
      text: 'whole', reasoning: '', providers: [], calls: [{ id: 'c1', name: 'now', arguments: '{}' }],
      usage: { inputTokens: 3, outputTokens: 2 }, finish: 'tool-calls',
    })
  })
})

describe('errors', () => {
  it('429 with retry-after: RATE_LIMIT, retryable, retryAfterMs', async () => {
    server.reply(status(429, '{"error":{"message":"Rate limit reached","type":"requests"}}', { 'retry-after': '2' }))
    const { error } = await run(model())
    expect(BosunError.is(error, 'RATE_LIMIT')).toBe(true)
    expect([error?.status, error?.retryable, error?.retryAfterMs]).toEqual([429, true, 2000])
    expect(error?.message).toContain('Rate limit reached')
  })

  it('429 without retry-after: retryAfterMs undefined', async () => {
    server.reply(status(429, '{"error":{"message":"slow down"}}'))
    const { error } = await run(model())
    expect([error?.code, error?.status, error?.retryable, error?.retryAfterMs]).toEqual(['RATE_LIMIT', 429, true, undefined])
  })

  it('401: AUTH, not retryable', async () => {
    server.reply(status(401, '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}'))
    const { error } = await run(model())
    expect([error?.code, error?.status, error?.retryable]).toEqual(['AUTH', 401, false])
    expect(error?.message).toContain('apiKeyEnv')
  })

  it('400 for a too long context: CONTEXT_WINDOW_EXCEEDED', async () => {
    server.reply(status(400, '{"error":{"message":"This model\'s maximum context length is 65536 tokens. However, you requested 70000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}'))
    const { error } = await run(model())
    expect([error?.code, error?.status, error?.retryable]).toEqual(['CONTEXT_WINDOW_EXCEEDED', 400, false])
  })

  it('other 400s: INVALID_REQUEST; 500 and 503: SERVER (retryable)', async () => {
    server.reply(
      status(400, '{"error":{"message":"Unknown parameter: foo"}}'),
      status(500, '{"error":{"message":"boom"}}'),
      status(503, '<html>Service Unavailable</html>', { 'content-type': 'text/html' }),
    )
    expect((await run(model())).error?.code).toBe('INVALID_REQUEST')
    const internal = (await run(model())).error
    expect([internal?.code, internal?.status, internal?.retryable]).toEqual(['SERVER', 500, true])
    expect((await run(model())).error?.code).toBe('SERVER')
  })

  it('an error object in the middle of the stream, after some text', async () => {
    server.reply(
      sse([chunk({ content: 'Half' }), '{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}']),
      sse([chunk({ content: 'x' }), '{"error":{"message":"Rate limit exceeded","code":429}}']),
      sse(['{"error":{"message":"This model\'s maximum context length is 8192 tokens","type":"invalid_request_error"}}']),
    )
    const first = await run(model())
    expect(assemble(first.chunks).text).toBe('Half')
    expect([first.error?.code, first.error?.retryable]).toEqual(['SERVER', true])
    // Named by its URL, whatever the option provider tags its reasoning with (server-name.test.ts).
    expect(first.error?.message).toBe(`The server at ${new URL(server.url).host} reported an error in the stream: The server had an error while processing your request.`)
    const second = (await run(model({ provider: 'openrouter' }))).error
    expect([second?.code, second?.status, second?.message]).toEqual(['RATE_LIMIT', 429, `The server at ${new URL(server.url).host} reported an error in the stream: Rate limit exceeded`])
    expect((await run(model())).error?.code).toBe('CONTEXT_WINDOW_EXCEEDED')
  })

  it('a connection reset mid-stream: TRANSPORT (retryable), after the delivered chunks', async () => {
    server.reply(reset([chunk({ content: 'par' }), chunk({ content: 'tial' })]))
    const { chunks, error } = await run(model())
    expect(assemble(chunks).text).toBe('partial')
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
  })

  it('a server that cannot be reached: TRANSPORT', async () => {
    // Port 0: nothing can listen on it (binding 0 asks for any free port), so the connection is
    // refused every time — a port a closed server had could be taken by another process meanwhile.
    const { error } = await run(openai({ baseURL: 'http://127.0.0.1:0/v1', model: 'm' }))
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
    expect(error?.message).toMatch(/^Nothing answered at http:\/\/127\.0\.0\.1:\d+\/v1: the connection was refused \(fetch failed/)
  })

  it('a stream that stalls: TIMEOUT after idleTimeoutMs, and the connection is closed', async () => {
    // The deadline's clock is faked and moved by the test (as the Anthropic adapter's test does):
    // on the real clock a busy machine let the 100 ms pass before 'start' arrived, and no text was
    // seen. One exchange on the real clock first: fetch's own timers are made then, not on the fake one.
    server.reply(sse([chunk({ content: 'warm' }, 'stop')]))
    expect((await run(model())).error).toBeUndefined()
    vi.useFakeTimers(DEADLINE_CLOCK)
    try {
      server.reply(stall([chunk({ content: 'start' })]))
      const pulled = pull(model({ idleTimeoutMs: 100 }), request())
      await pullUntil(pulled, (chunks) => assemble([...chunks]).text === 'start')
      const stalled = pulled.next()
      expect(await pending(stalled), 'ended before idleTimeoutMs').toBe(true)
      await vi.advanceTimersByTimeAsync(100)
      const ended = await stalled
      expect(ended).toMatchObject({ error: { code: 'TIMEOUT', retryable: true } })
      await server.requests[1]!.closed
    } finally {
      vi.useRealTimers()
    }
  })

  it('keep-alive comments and role-only deltas between chunks make no chunks', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`: keep-alive\n\ndata: ${chunk({ role: 'assistant' })}\n\n`),
      sseBytes([chunk({ content: 'aw' })], false),
      Buffer.from(': keep-alive\n\n'),
      sseBytes([chunk({ content: 'ake' }, 'stop')]),
    ])
    server.reply(raw([bytes]))
    const { chunks, error } = await run(model())
    expect(error).toBeUndefined()
    expect(chunks).toEqual([{ type: 'text-delta', text: 'aw' }, { type: 'text-delta', text: 'ake' }, { type: 'finish', reason: 'stop' }])
  })

  it('a server that never answers the request: TIMEOUT too', async () => {
    server.reply(() => {})
    const { error } = await run(model({ idleTimeoutMs: 100 }))
    expect(error?.code).toBe('TIMEOUT')
    await server.requests[0]!.closed
  })

  it('malformed JSON in a chunk: MALFORMED_RESPONSE', async () => {
    server.reply(sse([chunk({ content: 'ok' }), '{"choices":[{"index":0,"delta":{"content":"x"}']))
    const { chunks, error } = await run(model())
    expect(assemble(chunks).text).toBe('ok')
    expect([error?.code, error?.retryable]).toEqual(['MALFORMED_RESPONSE', false])
    expect(error?.message).toContain('a chunk is not JSON')
  })

  it('well-formed JSON of the wrong shape: MALFORMED_RESPONSE', async () => {
    server.reply(sse(['[1,2]']), sse([chunk({ content: 42 })]), sse([chunk({ tool_calls: [{ index: -1 }] })]))
    for (let i = 0; i < 3; i++) expect((await run(model())).error?.code).toBe('MALFORMED_RESPONSE')
  })

  it('abort mid-stream: ABORTED, and the server sees the connection closed', async () => {
    server.reply(stall([chunk({ content: 'one' }), chunk({ content: 'two' })]))
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    const error = await (async () => {
      for await (const c of model().stream(request(), { signal: controller.signal })) {
        chunks.push(c)
        if (chunks.length === 1) setTimeout(() => controller.abort('user pressed Ctrl+C'), 20)
      }
    })().catch((e: unknown) => e)
    expect(BosunError.is(error, 'ABORTED')).toBe(true)
    expect((error as { retryable: boolean }).retryable).toBe(false)
    await server.requests[0]!.closed
  })

  it('aborted before the start: ABORTED, no request sent', async () => {
    const controller = new AbortController()
    controller.abort()
    const { error } = await run(model(), request(), controller.signal)
    expect(error?.code).toBe('ABORTED')
    expect(server.requests).toHaveLength(0)
  })
})

describe('the HTTP request', () => {
  it('is lazy: nothing is sent until the stream is iterated', async () => {
    const adapter = model()
    const stream = adapter.stream(request(), { signal: new AbortController().signal })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(server.requests).toHaveLength(0)
    for await (const _ of stream) void _
    expect(server.requests).toHaveLength(1)
  })

  it('POSTs JSON to <baseURL>/chat/completions with the key, the extra headers and SSE accept', async () => {
    process.env.OPENAI_TEST_KEY_A = 'sk-test-SECRET-4242'
    try {
      await run(model({ apiKeyEnv: 'OPENAI_TEST_KEY_A', headers: { 'X-Title': 'bosun tests' } }))
      const [sent] = server.requests
      expect(sent?.method).toBe('POST')
      expect(sent?.path).toBe('/v1/chat/completions')
      expect(sent?.headers).toMatchObject({
        authorization: 'Bearer sk-test-SECRET-4242',
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-title': 'bosun tests',
      })
      expect(sent?.body).toMatchObject({ model: 'test-model', stream: true, stream_options: { include_usage: true } })
    } finally {
      delete process.env.OPENAI_TEST_KEY_A
    }
  })

  it('sends no Authorization to a server other than OpenAI unless apiKeyEnv names a key', async () => {
    const before = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-openai-not-for-others'
    try {
      await run(openai({ baseURL: server.url, model: 'llama3.2' }))
      expect(server.requests[0]?.headers.authorization).toBeUndefined()
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = before
    }
  })

  it('keeps a query string of baseURL (proxies, Azure-style api-version)', async () => {
    await run(openai({ baseURL: `${server.url}/?api-version=2024-10-21`, model: 'm' }))
    expect(server.requests[0]?.path).toBe('/v1/chat/completions?api-version=2024-10-21')
  })
})
