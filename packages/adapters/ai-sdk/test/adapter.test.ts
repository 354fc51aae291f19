import { describe, expect, it } from 'vitest'
import { BosunError, createAdapter, createUserMessage, ModelError } from '@bosun/core'
import type { ModelAdapter, ModelChunk, ModelMessage, ModelRequest } from '@bosun/core'
import type { LanguageModelV2StreamPart, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import definition, { aiSdk, aiSdkOptionsSchema } from '../src/index.js'
import { apiCallError, finishV2, finishV3, mockV2, mockV3, mockV4 } from './mock-model.js'
import { expectCodeLines, expectConfigLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'

const user = (text: string): ModelMessage => createUserMessage(text, { id: text })

function request(messages: ModelMessage[] = [user('hi')], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: '', messages, tools: [], params: {}, ...extra }
}

async function collect(adapter: ModelAdapter, req = request(), signal = new AbortController().signal) {
  const chunks: ModelChunk[] = []
  let error: unknown
  try {
    for await (const chunk of adapter.stream(req, { signal })) chunks.push(chunk)
  } catch (e) {
    error = e
  }
  return { chunks, error }
}

async function chunksOf(adapter: ModelAdapter, req = request()): Promise<ModelChunk[]> {
  const { chunks, error } = await collect(adapter, req)
  if (error !== undefined) throw error
  return chunks
}

const text = (id: string, ...deltas: string[]): LanguageModelV2StreamPart[] => [
  { type: 'text-start', id },
  ...deltas.map((delta) => ({ type: 'text-delta' as const, id, delta })),
  { type: 'text-end', id },
]

describe('aiSdk(): the adapter', () => {
  it('is named ai-sdk and reports <provider>:<modelId>', () => {
    const adapter = aiSdk({ model: mockV2({ provider: 'openai.responses', modelId: 'gpt-4.1', responses: [] }) })
    expect(adapter.name).toBe('ai-sdk')
    expect(adapter.model).toBe('openai.responses:gpt-4.1')
  })

  it('calls doStream only when the stream is iterated', async () => {
    const model = mockV2({ responses: [[...text('0', 'hi'), finishV2('stop')]] })
    const adapter = aiSdk({ model })
    const iterable = adapter.stream(request(), { signal: new AbortController().signal })
    expect(model.calls).toHaveLength(0)
    for await (const _ of iterable) void _
    expect(model.calls).toHaveLength(1)
  })

  it('rejects what is not a V2/V3/V4 model, and bad numbers', () => {
    expect(() => aiSdk({ model: 'openai/gpt-4.1' as never })).toThrow(/model object/)
    expect(() => aiSdk({ model: {} as never })).toThrow(/AI SDK language model/)
    const v1 = { specificationVersion: 'v1', provider: 'p', modelId: 'm', doStream: () => {} }
    expect(() => aiSdk({ model: v1 as never })).toThrow(/specification "v1"; supported are v2, v3, v4/)
    const model = mockV2({ responses: [] })
    expect(() => aiSdk({ model, maxTokens: 0 })).toThrow(/maxTokens/)
    expect(() => aiSdk({ model, temperature: -1 })).toThrow(/temperature/)
    try {
      aiSdk({ model: null as never })
    } catch (error) {
      expect(BosunError.is(error, 'INVALID_ARGUMENT')).toBe(true)
    }
  })
})

describe('request → AI SDK call options', () => {
  it('maps system, user text and images, settings, tools and the abort signal', async () => {
    const model = mockV2({ responses: [[finishV2('stop')]] })
    const adapter = aiSdk({ model, maxTokens: 100, temperature: 0.5, providerOptions: { mock: { a: 1 } } })
    const signal = new AbortController().signal
    const image = createUserMessage([{ type: 'text', text: 'look' }, { type: 'image', mediaType: 'image/png', data: 'AAAA' }], { id: 'u1' })
    const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]
    for await (const _ of adapter.stream(request([image], { system: 'Be brief.', tools, params: { temperature: 0, providerOptions: { mock: { b: 2 } } } }), { signal })) void _
    const call = model.calls[0]!
    // The call's own signal (aborted by the turn's, by the idle watchdog, or once the call is done).
    expect(call.abortSignal).toBeInstanceOf(AbortSignal)
    expect(call.abortSignal!.aborted).toBe(true)
    expect(signal.aborted).toBe(false)
    expect({ ...call, abortSignal: undefined }).toEqual({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'file', mediaType: 'image/png', data: 'AAAA' }] },
      ],
      tools: [{ type: 'function', name: 'read', description: 'Read a file', inputSchema: tools[0]!.parameters }],
      maxOutputTokens: 100,
      temperature: 0, // request.params override the adapter's options
      providerOptions: { mock: { a: 1, b: 2 } },
      abortSignal: undefined,
    })
  })

  it('maps assistant tool calls and tool results (text, error, images), grouping the results of a step', async () => {
    const history: ModelMessage[] = [
      user('go'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a.txt"}' },
          { type: 'tool-call', id: 'c2', name: 'read', arguments: '' },
          { type: 'tool-call', id: 'c3', name: 'shot', arguments: '{"cut off' },
        ],
      },
      { role: 'tool', callId: 'c1', name: 'read', content: [{ type: 'text', text: 'hello' }] },
      { role: 'tool', callId: 'c2', name: 'read', content: [{ type: 'text', text: 'no path' }], isError: true },
      { role: 'tool', callId: 'c3', name: 'shot', content: [{ type: 'text', text: 'see' }, { type: 'image', mediaType: 'image/png', data: 'BBBB' }] },
    ]
    const v2 = mockV2({ responses: [[finishV2('stop')]] })
    const v3 = mockV3({ responses: [[finishV3('stop')]] })
    const v4 = mockV4({ responses: [[finishV3('stop') as LanguageModelV4StreamPart]] })
    for (const model of [v2, v3, v4]) await chunksOf(aiSdk({ model }), request(history))
    const expected = (image: unknown) => [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.txt' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: {} },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'shot', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'hello' } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'error-text', value: 'no path' } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'shot', output: { type: 'content', value: [{ type: 'text', text: 'see' }, image] } },
        ],
      },
    ]
    expect(v2.calls[0]!.prompt).toEqual(expected({ type: 'media', data: 'BBBB', mediaType: 'image/png' }))
    expect(v3.calls[0]!.prompt).toEqual(expected({ type: 'image-data', data: 'BBBB', mediaType: 'image/png' }))
    expect(v4.calls[0]!.prompt).toEqual(expected({ type: 'file', data: { type: 'data', data: 'BBBB' }, mediaType: 'image/png' }))
  })

  it('gives V4 user images as { type: "data", data }', async () => {
    const model = mockV4({ responses: [[finishV3('stop') as LanguageModelV4StreamPart]] })
    const image = createUserMessage([{ type: 'image', mediaType: 'image/jpeg', data: 'CCCC' }], { id: 'u' })
    await chunksOf(aiSdk({ model }), request([image]))
    expect(model.calls[0]!.prompt).toEqual([{ role: 'user', content: [{ type: 'file', mediaType: 'image/jpeg', data: { type: 'data', data: 'CCCC' } }] }])
  })

  it("passes reasoning back only to its own provider, the signature as providerOptions[provider].signature", async () => {
    const history: ModelMessage[] = [
      user('q'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'mine', signature: 'sig-1', provider: 'anthropic' },
          { type: 'reasoning', text: 'plain', provider: 'anthropic' },
          { type: 'reasoning', text: 'foreign', signature: 'sig-x', provider: 'openai' },
          { type: 'reasoning', text: 'unknown origin' },
          { type: 'text', text: 'answer' },
        ],
      },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'only foreign', signature: 's', provider: 'google' }] },
      user('next'),
    ]
    const model = mockV3({ provider: 'anthropic.messages', responses: [[finishV3('stop')]] })
    await chunksOf(aiSdk({ model }), request(history))
    expect(model.calls[0]!.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'mine', providerOptions: { anthropic: { signature: 'sig-1' } } },
          { type: 'reasoning', text: 'plain' },
          { type: 'text', text: 'answer' },
        ],
      },
      // the assistant message with only foreign reasoning is left out
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ])
    // Bedrock's metadata key is `bedrock`, its provider id `amazon-bedrock`.
    const bedrock = mockV2({ provider: 'amazon-bedrock', responses: [[finishV2('stop')]] })
    const signed: ModelMessage = { role: 'assistant', content: [{ type: 'reasoning', text: 't', signature: 'b-sig', provider: 'bedrock' }] }
    await chunksOf(aiSdk({ model: bedrock }), request([user('q'), signed]))
    expect(bedrock.calls[0]!.prompt[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 't', providerOptions: { bedrock: { signature: 'b-sig' } } }] })
  })

  it('sends Anthropic redacted thinking recorded by the native adapter (empty text, data as signature) as redactedData', async () => {
    const history: ModelMessage[] = [
      user('q'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'visible', signature: 'sig-1', provider: 'anthropic' },
          { type: 'reasoning', text: '', signature: 'opaque-redacted-data', provider: 'anthropic' },
          { type: 'text', text: 'answer' },
        ],
      },
      user('next'),
    ]
    const model = mockV3({ provider: 'anthropic.messages', responses: [[finishV3('stop')]] })
    await chunksOf(aiSdk({ model }), request(history))
    expect(model.calls[0]!.prompt[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'visible', providerOptions: { anthropic: { signature: 'sig-1' } } },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'opaque-redacted-data' } } },
        { type: 'text', text: 'answer' },
      ],
    })
  })

  it('leaves out text blocks of whitespace only (Anthropic refuses them), and a user message left empty', async () => {
    const model = mockV4({ responses: [[finishV3('stop') as LanguageModelV4StreamPart]] })
    const history: ModelMessage[] = [
      createUserMessage([{ type: 'text', text: ' \n' }, { type: 'image', mediaType: 'image/jpeg', data: 'CCCC' }], { id: 'u1' }),
      { role: 'assistant', content: [{ type: 'text', text: '\n\n' }, { type: 'text', text: 'seen' }] },
      createUserMessage([{ type: 'text', text: '   ' }], { id: 'u2' }),
      user('next'),
    ]
    await chunksOf(aiSdk({ model }), request(history))
    expect(model.calls[0]!.prompt).toEqual([
      { role: 'user', content: [{ type: 'file', mediaType: 'image/jpeg', data: { type: 'data', data: 'CCCC' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ])
  })

  it('omits an empty system prompt and tools', async () => {
    const model = mockV2({ responses: [[finishV2('stop')]] })
    await chunksOf(aiSdk({ model }))
    expect(Object.keys(model.calls[0]!).sort()).toEqual(['abortSignal', 'prompt'])
  })
})

describe('stream parts → chunks', () => {
  it('streams text and finishes with usage (V2)', async () => {
    const model = mockV2({
      responses: [[
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'r1', modelId: 'mock-1' },
        ...text('0', 'Hel', '', 'lo'),
        finishV2('stop', { inputTokens: 10, outputTokens: 2, reasoningTokens: 0, cachedInputTokens: 4 }),
      ]],
    })
    expect(await chunksOf(aiSdk({ model }))).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 2, reasoningTokens: 0, cachedInputTokens: 4 } },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('streams reasoning with the provider, and its signature once, then text (V3, Anthropic-style)', async () => {
    const model = mockV3({
      provider: 'anthropic.messages',
      responses: [[
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Let me ' },
        { type: 'reasoning-delta', id: 'r', delta: 'think.' },
        // the signature arrives on an empty delta, and again on the end: sent once
        { type: 'reasoning-delta', id: 'r', delta: '', providerMetadata: { anthropic: { signature: 'sig==' } } },
        { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'sig==' } } },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Done.' },
        { type: 'text-end', id: 't' },
        finishV3('stop', { input: 5, output: 7, reasoning: 3, cacheRead: 1 }),
      ]],
    })
    expect(await chunksOf(aiSdk({ model }))).toEqual([
      { type: 'reasoning-delta', text: 'Let me ', provider: 'anthropic' },
      { type: 'reasoning-delta', text: 'think.', provider: 'anthropic' },
      { type: 'reasoning-delta', text: '', signature: 'sig==', provider: 'anthropic' },
      { type: 'text-delta', text: 'Done.' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 1 } },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('takes a signature from reasoning-end metadata too', async () => {
    const model = mockV2({
      provider: 'anthropic.messages',
      responses: [[
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
        { type: 'reasoning-end', id: 'r', providerMetadata: { anthropic: { signature: 'end-sig' } } },
        finishV2('stop'),
      ]],
    })
    expect((await chunksOf(aiSdk({ model }))).slice(0, 2)).toEqual([
      { type: 'reasoning-delta', text: 'hmm', provider: 'anthropic' },
      { type: 'reasoning-delta', text: '', signature: 'end-sig', provider: 'anthropic' },
    ])
  })

  it('streams a tool call from tool-input-* parts, ignoring the tool-call part that repeats it', async () => {
    const model = mockV2({
      responses: [[
        ...text('0', 'Reading.'),
        { type: 'tool-input-start', id: 'call_1', toolName: 'read' },
        { type: 'tool-input-delta', id: 'call_1', delta: '{"path":' },
        { type: 'tool-input-delta', id: 'call_1', delta: '"a.txt"}' },
        { type: 'tool-input-end', id: 'call_1' },
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'read', input: '{"path":"a.txt"}' },
        { type: 'tool-input-start', id: 'call_2', toolName: 'list' },
        { type: 'tool-input-end', id: 'call_2' },
        // nothing was streamed for call_2: its input comes with the tool-call part
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'list', input: '{}' },
        finishV2('tool-calls'),
      ]],
    })
    expect(await chunksOf(aiSdk({ model }))).toEqual([
      { type: 'text-delta', text: 'Reading.' },
      { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'read' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"a.txt"}' },
      { type: 'tool-call-delta', index: 1, id: 'call_2', name: 'list' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool-calls' },
    ])
  })

  it('streams a complete tool-call part as one delta, and leaves out provider-executed calls (V3)', async () => {
    const model = mockV3({
      responses: [[
        { type: 'tool-input-start', id: 'ws_1', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'ws_1', delta: '{"q":"x"}' },
        { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{"q":"x"}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', result: { hits: 1 } },
        { type: 'tool-call', toolCallId: 'c9', toolName: 'read', input: '{"path":"b"}' },
        { type: 'tool-call', toolCallId: 'c10', toolName: 'now', input: '' },
        finishV3('tool-calls'),
      ]],
    })
    expect(await chunksOf(aiSdk({ model }))).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'c9', name: 'read', argumentsDelta: '{"path":"b"}' },
      { type: 'tool-call-delta', index: 1, id: 'c10', name: 'now' },
      { type: 'finish', reason: 'tool-calls' },
    ])
  })

  it('maps finish reasons', async () => {
    const cases: [Parameters<typeof finishV2>[0], string][] = [
      ['stop', 'stop'], ['length', 'max-tokens'], ['tool-calls', 'tool-calls'], ['content-filter', 'content-filter'],
      ['other', 'stop'],
    ]
    const model = mockV2({ responses: cases.map(([reason]) => [...text('0', 'x'), finishV2(reason)]) })
    const adapter = aiSdk({ model })
    for (const [, expected] of cases) expect((await chunksOf(adapter)).at(-1)).toEqual({ type: 'finish', reason: expected })
    const v3 = mockV3({ responses: [[finishV3('length')], [finishV3('other')]] })
    expect(await chunksOf(aiSdk({ model: v3 }))).toEqual([{ type: 'finish', reason: 'max-tokens' }])
    // `other` with a reason the provider gave (raw) ended the response: stop.
    expect(await chunksOf(aiSdk({ model: v3 }))).toEqual([{ type: 'finish', reason: 'stop' }])
  })

  it("V2 'unknown' and V3/V4 'other' with no raw reason (the stream ended before a finish reason) are TRANSPORT, not stop", async () => {
    const cutV3 = { type: 'finish' as const, finishReason: { unified: 'other' as const, raw: undefined }, usage: finishV3('stop').usage }
    const expectCut = async (adapter: ReturnType<typeof aiSdk>) => {
      const { chunks, error } = await collect(adapter)
      expect(chunks).toEqual([{ type: 'text-delta', text: 'half' }])
      expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true, message: expect.stringContaining('before the response was complete') })
    }
    await expectCut(aiSdk({ model: mockV2({ responses: [[...text('0', 'half'), finishV2('unknown')]] }) }))
    const half = { type: 'text-delta' as const, id: '0', delta: 'half' }
    await expectCut(aiSdk({ model: mockV3({ responses: [[half, cutV3]] }) }))
    await expectCut(aiSdk({ model: mockV4({ responses: [[half, cutV3]] }) }))
  })

  it("throws on finish reason 'error', V4 'interrupted', and a stream that ends without finish", async () => {
    const model = mockV2({ responses: [[...text('0', 'part'), finishV2('error')], [...text('0', 'cut')]] })
    const adapter = aiSdk({ model })
    const first = await collect(adapter)
    expect(first.chunks).toEqual([{ type: 'text-delta', text: 'part' }])
    expect(first.error).toBeInstanceOf(ModelError)
    expect(first.error).toMatchObject({ code: 'SERVER', retryable: true })
    expect((await collect(adapter)).error).toMatchObject({ code: 'TRANSPORT', retryable: true, message: expect.stringContaining('without a finish part') })
    const v4 = mockV4({
      responses: [[{ type: 'finish', finishReason: { unified: 'interrupted', raw: undefined }, usage: finishV3('stop').usage }]],
    })
    expect((await collect(aiSdk({ model: v4 }))).error).toMatchObject({ code: 'TRANSPORT' })
  })
})

describe('errors', () => {
  it('throws an error part as a typed ModelError', async () => {
    const model = mockV2({
      provider: 'anthropic.messages',
      responses: [
        [...text('0', 'partial'), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, finishV2('error')],
        [{ type: 'error', error: { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } } }],
        [{ type: 'error', error: { code: 'context_length_exceeded', message: 'Too long' } }],
      ],
    })
    const adapter = aiSdk({ model })
    const first = await collect(adapter)
    expect(first.chunks).toEqual([{ type: 'text-delta', text: 'partial' }])
    expect(first.error).toBeInstanceOf(ModelError)
    expect(first.error).toMatchObject({ code: 'SERVER', retryable: true, message: 'anthropic.messages failed: Overloaded' })
    expect((await collect(adapter)).error).toMatchObject({ code: 'RATE_LIMIT', retryable: true })
    expect((await collect(adapter)).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false })
  })

  it('maps an APICallError thrown by doStream: 429 with retry-after → RATE_LIMIT, retryAfterMs 2000', async () => {
    const error = apiCallError({ message: 'Rate limit reached', statusCode: 429, responseHeaders: { 'retry-after': '2' } })
    const model = mockV2({ provider: 'openai.responses', responses: [{ throws: error }] })
    const { chunks, error: thrown } = await collect(aiSdk({ model }))
    expect(chunks).toEqual([])
    expect(thrown).toBeInstanceOf(ModelError)
    expect(thrown).toMatchObject({
      code: 'RATE_LIMIT', status: 429, retryAfterMs: 2000, retryable: true,
      message: 'openai.responses: the server at api.example.com answered HTTP 429: Rate limit reached',
    })
    expect((thrown as ModelError).cause).toBe(error)
  })

  it('a 429 insufficient_quota is not retryable whatever the SDK says; reset headers are a wait for a 429 only', async () => {
    const quota = apiCallError({
      message: 'You exceeded your current quota', statusCode: 429, isRetryable: true, responseHeaders: { 'retry-after': '20' },
      responseBody: JSON.stringify({ error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } }),
    })
    const overloaded = apiCallError({ message: 'Overloaded', statusCode: 529, isRetryable: true, responseHeaders: { 'x-ratelimit-reset-tokens': '6m0s' } })
    const model = mockV2({ provider: 'openai.responses', responses: [{ throws: quota }, { throws: overloaded }] })
    const adapter = aiSdk({ model })
    const first = (await collect(adapter)).error as ModelError
    expect([first.code, first.retryable, first.retryAfterMs]).toEqual(['RATE_LIMIT', false, undefined])
    const second = (await collect(adapter)).error as ModelError
    expect([second.code, second.retryable, second.retryAfterMs]).toEqual(['SERVER', true, undefined])
  })

  it('maps other statuses, context-window 400s, failed connections and AI SDK error names', async () => {
    const model = mockV3({
      responses: [
        { throws: apiCallError({ message: 'Invalid API key', statusCode: 401 }) },
        { throws: apiCallError({ message: 'prompt is too long: 300000 tokens', statusCode: 400 }) },
        { throws: apiCallError({ message: 'Overloaded', statusCode: 529 }) },
        { throws: apiCallError({ message: 'Cannot connect to API: fetch failed' }) },
        { throws: Object.assign(new Error('OpenAI API key is missing'), { name: 'AI_LoadAPIKeyError' }) },
        { throws: new Error('boom') },
      ],
    })
    const adapter = aiSdk({ model })
    expect((await collect(adapter)).error).toMatchObject({ code: 'AUTH', status: 401, retryable: false })
    expect((await collect(adapter)).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400, retryable: false })
    expect((await collect(adapter)).error).toMatchObject({ code: 'SERVER', status: 529, retryable: true })
    expect((await collect(adapter)).error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    expect((await collect(adapter)).error).toMatchObject({ code: 'AUTH', retryable: false })
    expect((await collect(adapter)).error).toMatchObject({ code: 'SERVER', message: 'mock.chat failed: boom' })
  })

  it('maps an AbortError thrown by doStream to ABORTED', async () => {
    const model = mockV2({ responses: [{ throws: new DOMException('This operation was aborted', 'AbortError') }] })
    expect((await collect(aiSdk({ model }))).error).toMatchObject({ code: 'ABORTED', retryable: false })
  })
})

describe('abort', () => {
  it('passes an abortSignal that the turn\'s signal aborts, and stops a running stream with ABORTED', async () => {
    const model = mockV2({ responses: [{ parts: [...text('0', 'long answer')], hang: true }] })
    const controller = new AbortController()
    const chunks: ModelChunk[] = []
    let error: unknown
    try {
      for await (const chunk of aiSdk({ model }).stream(request(), { signal: controller.signal })) {
        chunks.push(chunk)
        controller.abort()
      }
    } catch (e) {
      error = e
    }
    expect(model.calls[0]!.abortSignal!.aborted).toBe(true)
    expect(model.calls[0]!.abortSignal!.reason).toBe(controller.signal.reason)
    expect(chunks).toEqual([{ type: 'text-delta', text: 'long answer' }])
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ code: 'ABORTED', retryable: false })
  })

  it('fails a call that yields nothing for idleTimeoutMs with TIMEOUT, and aborts its request', async () => {
    const stalled = mockV2({ responses: [{ parts: [...text('0', 'a start')], hang: true }] })
    const { chunks, error } = await collect(aiSdk({ model: stalled, idleTimeoutMs: 50 }))
    expect(chunks).toEqual([{ type: 'text-delta', text: 'a start' }])
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true })
    expect((error as Error).message).toMatch(/^mock\.chat sent no content \(text, reasoning or a tool call\) for 50 ms/)
    expect(stalled.calls[0]!.abortSignal!.aborted).toBe(true)
    // A provider whose doStream never answers at all.
    const silent = mockV2({ responses: [] })
    ;(silent as unknown as { doStream: (options: { abortSignal?: AbortSignal }) => Promise<never> }).doStream = (options) => {
      silent.calls.push(options as never)
      return new Promise<never>(() => {})
    }
    const quiet = await collect(aiSdk({ model: silent, idleTimeoutMs: 50 }))
    expect(quiet.error).toMatchObject({ code: 'TIMEOUT' })
    expect(silent.calls[0]!.abortSignal!.aborted).toBe(true)
    expect(() => aiSdk({ model: silent, idleTimeoutMs: 0 })).toThrow('$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found 0)')
    expect(() => aiSdk({ model: silent, timeoutMs: 1.5 })).toThrow('$.timeoutMs: must be an integer (found 1.5)')
  })

  it('parts that make no chunk (metadata, an unsigned reasoning start, empty deltas) are not progress: TIMEOUT', async () => {
    const model = mockV2({ responses: [] })
    const quiet: LanguageModelV2StreamPart[] = [
      { type: 'stream-start', warnings: [] }, { type: 'response-metadata', id: 'r1' }, { type: 'reasoning-start', id: 'x' },
      { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: '' }, { type: 'raw', rawValue: {} },
    ]
    let sent = 0
    ;(model as unknown as { doStream: (options: { abortSignal?: AbortSignal }) => Promise<{ stream: ReadableStream }> }).doStream = async ({ abortSignal }) => ({
      // Parts that make no chunk, one every 10 ms, until the call is aborted.
      stream: new ReadableStream({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 10))
          if (abortSignal?.aborted) controller.close()
          else controller.enqueue(quiet[sent++ % quiet.length])
        },
      }),
    })
    const { chunks, error } = await collect(aiSdk({ model, idleTimeoutMs: 100 }))
    expect(chunks).toEqual([])
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true })
  })

  it('stops even when the provider ignores the signal', async () => {
    const model = mockV2({ responses: [{ parts: [], hang: true }] })
    // A doStream whose stream never ends and never looks at the signal.
    const deaf = { ...model, doStream: async () => ({ stream: new ReadableStream<LanguageModelV2StreamPart>() }) }
    const controller = new AbortController()
    const pending = collect(aiSdk({ model: deaf }), request(), controller.signal)
    setTimeout(() => controller.abort(), 5)
    expect((await pending).error).toMatchObject({ code: 'ABORTED' })
  })

  it('stops with ABORTED while doStream is still pending, cancelling the stream that comes late', async () => {
    let resolve!: (value: { stream: ReadableStream<LanguageModelV2StreamPart> }) => void
    let cancelled = false
    const late = new ReadableStream<LanguageModelV2StreamPart>({ cancel: () => void (cancelled = true) })
    const model = { ...mockV2({ responses: [] }), doStream: () => new Promise<{ stream: ReadableStream<LanguageModelV2StreamPart> }>((r) => (resolve = r)) }
    const controller = new AbortController()
    const pending = collect(aiSdk({ model }), request(), controller.signal)
    await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    expect((await pending).error).toMatchObject({ code: 'ABORTED' })
    resolve({ stream: late })
    await new Promise((r) => setTimeout(r, 5))
    expect(cancelled).toBe(true)
  })

  it('throws ABORTED without calling the model when the signal is already aborted', async () => {
    const model = mockV2({ responses: [[finishV2('stop')]] })
    const controller = new AbortController()
    controller.abort()
    expect((await collect(aiSdk({ model }), request(), controller.signal)).error).toMatchObject({ code: 'ABORTED' })
    expect(model.calls).toHaveLength(0)
  })

  it('cancels the provider stream when the consumer stops early', async () => {
    let cancelled = false
    const stream = new ReadableStream<LanguageModelV2StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: '0', delta: 'a' })
      },
      cancel() {
        cancelled = true
      },
    })
    const model = { ...mockV2({ responses: [] }), doStream: async () => ({ stream }) }
    for await (const _ of aiSdk({ model }).stream(request(), { signal: new AbortController().signal })) break
    expect(cancelled).toBe(true)
  })
})

describe('the adapter definition and its options schema', () => {
  it('is named ai-sdk and creates the adapter from validated options', async () => {
    expect(definition).toMatchObject({ kind: 'bosun-adapter', name: 'ai-sdk', schema: aiSdkOptionsSchema })
    const model = mockV2({ provider: 'anthropic.messages', modelId: 'claude', responses: [[...text('0', 'hi'), finishV2('stop')]] })
    const adapter = await createAdapter(definition, { model, maxTokens: 1000, temperature: 0.2, providerOptions: { anthropic: { x: true } } })
    expect(adapter).toMatchObject({ name: 'ai-sdk', model: 'anthropic.messages:claude' })
    expect(await chunksOf(adapter)).toEqual([{ type: 'text-delta', text: 'hi' }, { type: 'finish', reason: 'stop' }])
  })

  it('needs a model object (only a TS config can give one) and checks the numbers', async () => {
    const invalid = async (options: unknown) => {
      try {
        await createAdapter(definition, options)
      } catch (error) {
        expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
        return (error as Error).message
      }
      throw new Error('expected the options to be rejected')
    }
    expect(await invalid({})).toContain('$.model: is required')
    expect(await invalid({ model: 'openai:gpt-4.1' })).toContain("$.model: must be an AI SDK model object, e.g. openai('gpt-4.1') from @ai-sdk/openai, which only a TypeScript config (bosun.config.ts) or code can give: write this config in TypeScript (found \"openai:gpt-4.1\")")
    const model = mockV2({ responses: [] })
    expect(await invalid({ model, maxTokens: 0 })).toContain('$.maxTokens: must be an integer from 1 to 9007199254740991 (found 0)')
    expect(await invalid({ model, maxTokens: 1.5 })).toContain('$.maxTokens: must be an integer (found 1.5)')
    expect(await invalid({ model, temperature: -0.1 })).toContain('$.temperature: must be >= 0 (found -0.1)')
    expect(await invalid({ model, providerOptions: { anthropic: 1 } })).toContain('$.providerOptions.anthropic: must be an object (found 1)')
    expect(await invalid({ model, topP: 1 })).toContain('$.topP: unknown key "topP"')
  })

  it('aiSdk() from code and a config file give the same line for each rule of the schema (no hand-written twin)', async () => {
    const model = mockV2({ responses: [] })
    const cases: OptionsCase[] = [
      [{}, '$.model: is required'],
      [{ model: 'openai:gpt-4.1' }, "$.model: must be an AI SDK model object, e.g. openai('gpt-4.1') from @ai-sdk/openai, which only a TypeScript config (bosun.config.ts) or code can give: write this config in TypeScript (found \"openai:gpt-4.1\")"],
      [{ model, maxTokens: 0 }, '$.maxTokens: must be an integer from 1 to 9007199254740991 (found 0)'],
      // Beyond a safe integer it is no exact integer: 1e300 went to the provider as maxOutputTokens 1e+300.
      [{ model, maxTokens: 1e300 }, '$.maxTokens: must be an integer from 1 to 9007199254740991 (found 1e+300)'],
      [{ model, maxTokens: 2 ** 53 }, '$.maxTokens: must be an integer from 1 to 9007199254740991 (found 9007199254740992)'],
      [{ model, maxTokens: 1.5 }, '$.maxTokens: must be an integer (found 1.5)'],
      [{ model, temperature: -0.1 }, '$.temperature: must be >= 0 (found -0.1)'],
      [{ model, providerOptions: { anthropic: 1 } }, '$.providerOptions.anthropic: must be an object (found 1)'],
      [{ model, idleTimeoutMs: 0 }, '$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found 0)'],
      // A timer's longest wait: Node fires a longer one after 1 ms, every call a TIMEOUT (the twin refused unsafe integers).
      [{ model, idleTimeoutMs: 2 ** 31 }, '$.idleTimeoutMs: must be an integer from 1 to 2147483647 (found 2147483648)'],
      [{ model, timeoutMs: 1e300 }, '$.timeoutMs: must be an integer from 1 to 2147483647 (found 1e+300)'],
      [{ model, timeoutMs: 1.5 }, '$.timeoutMs: must be an integer (found 1.5)'],
      [{ model, timeoutMs: Number.POSITIVE_INFINITY }, '$.timeoutMs: must be an integer (found Infinity)'],
    ]
    expectCodeLines(aiSdk, 'aiSdk()', cases)
    await expectConfigLines(definition, cases)
    // What the schema cannot say of the model object, from code and through createAdapter alike.
    const v1 = { specificationVersion: 'v1', provider: 'p', modelId: 'm', doStream: () => {} }
    const line = '$.model: implements AI SDK specification "v1"; supported are v2, v3, v4 (AI SDK 5, 6 and 7 providers)'
    expect(() => aiSdk({ model: v1 as never })).toThrow(`Invalid options for aiSdk():\n  - ${line}`)
    await expect(createAdapter(definition, { model: v1 })).rejects.toThrow(`Invalid options for aiSdk():\n  - ${line}`)
  })

  it('reports a model object that is not an AI SDK model after the schema', async () => {
    await expect(createAdapter(definition, { model: { provider: 'x' } })).rejects.toThrow(/AI SDK language model/)
  })
})
