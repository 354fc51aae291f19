// Review Y2: a stream the provider cut must not look like a complete answer through the bridge.
// `@ai-sdk/openai` reports a Chat Completions stream that ended before its `finish_reason` as
// finish reason `{ unified: 'other', raw: undefined }` (AI SDK 6) or `'unknown'` (AI SDK 5); the
// bridge used to map both to `stop`. The model here is a minimal provider of that kind: it POSTs to
// a real local server replaying a recorded OpenAI stream and maps `finish_reason` as
// `@ai-sdk/openai`'s chat model does (for AI SDK 5 too; the real 3.x is at the end of this file).
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV2, LanguageModelV2FinishReason, LanguageModelV2StreamPart, LanguageModelV3, LanguageModelV3FinishReason, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import type { ModelAdapter, ModelChunk } from '@bosun/core'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { chunk, fixture, reset, sse, startServer, type TestServer } from '../../openai/src/testing/server.js'
import { openai } from '../../openai/src/adapter.js'
import { aiSdk } from '../src/index.js'

/** `@ai-sdk/openai`'s mapping of a Chat Completions `finish_reason` (V3: anything else is `other`). */
const UNIFIED: Record<string, LanguageModelV3FinishReason['unified']> = {
  stop: 'stop', length: 'length', content_filter: 'content-filter', function_call: 'tool-calls', tool_calls: 'tool-calls',
}

/** The `data:` payloads of an SSE body, as parsed JSON (`[DONE]` left out). */
async function* payloads(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, any>> {
  let buffer = ''
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buffer += text
    const events = buffer.split('\n\n')
    buffer = events.pop()!
    for (const event of events) if (event.startsWith('data: ') && event !== 'data: [DONE]') yield JSON.parse(event.slice(6)) as Record<string, any>
  }
}

/**
 * Text deltas, then one `finish` part when the body ends, with the reason `finishOf` makes of the
 * last `finish_reason` (undefined if none came), and the usage only if a usage chunk came — as the
 * real provider (the end of this file): a cut stream reports none.
 */
function openaiChat<Part>(url: string, finish: (raw: string | undefined, usage: boolean) => Part) {
  return async ({ abortSignal }: { abortSignal?: AbortSignal }) => {
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}', signal: abortSignal ?? null })
    let raw: string | undefined
    let usage = false
    const stream = new ReadableStream<unknown>({
      async start(controller) {
        for await (const payload of payloads(response.body!)) {
          const choice = payload.choices?.[0]
          if (typeof choice?.delta?.content === 'string' && choice.delta.content !== '') controller.enqueue({ type: 'text-delta', id: '0', delta: choice.delta.content })
          if (typeof choice?.finish_reason === 'string') raw = choice.finish_reason
          if (payload.usage != null) usage = true
        }
        controller.enqueue(finish(raw, usage))
        controller.close()
      },
    })
    return { stream: stream as ReadableStream<Part> }
  }
}

const usage = { inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: undefined, reasoning: undefined } }
const noUsage = { inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: undefined, text: undefined, reasoning: undefined } }

/** As `@ai-sdk/openai` 3 (AI SDK 6): `{ unified: 'other', raw: undefined }` until a finish_reason arrives. */
function v3(url: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3', provider: 'openai.chat', modelId: 'gpt-4.1-nano', supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: openaiChat<LanguageModelV3StreamPart>(url, (raw, reported) => ({
      type: 'finish', usage: reported ? usage : noUsage, finishReason: raw === undefined ? { unified: 'other', raw: undefined } : { unified: UNIFIED[raw] ?? 'other', raw },
    })) as LanguageModelV3['doStream'],
  }
}

/** As `@ai-sdk/openai` 2 (AI SDK 5): `'unknown'` until a finish_reason arrives. */
function v2(url: string): LanguageModelV2 {
  return {
    specificationVersion: 'v2', provider: 'openai.chat', modelId: 'gpt-4.1-nano', supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream: openaiChat<LanguageModelV2StreamPart>(url, (raw, reported) => ({
      type: 'finish', usage: reported ? { inputTokens: 1, outputTokens: 1, totalTokens: 2 } : { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined },
      finishReason: raw === undefined ? 'unknown' : ((UNIFIED[raw] ?? 'unknown') as LanguageModelV2FinishReason),
    })) as LanguageModelV2['doStream'],
  }
}

let server: TestServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await startServer()
})
afterEach(async () => {
  await server.close()
})

/** Runs a model through the bridge, or an adapter as it is. */
async function run(model: LanguageModelV2 | LanguageModelV3 | ModelAdapter) {
  const adapter = 'stream' in model ? model : aiSdk({ model })
  const chunks: ModelChunk[] = []
  try {
    for await (const c of adapter.stream({ system: '', messages: [], tools: [], params: {} }, { signal: new AbortController().signal })) chunks.push(c)
    return { chunks, error: undefined }
  } catch (error) {
    return { chunks, error: error as Error & { code?: string; retryable?: boolean } }
  }
}

const text = (chunks: ModelChunk[]) => chunks.map((c) => (c.type === 'text-delta' ? c.text : '')).join('')
const recorded = fixture('openai-text')
/** The recorded stream up to (not including) its finish_reason chunk: the connection dropped mid-answer. */
const beforeFinish = recorded.slice(0, recorded.findIndex((payload) => /"finish_reason":"stop"/.test(payload)))

describe('a stream cut before its finish reason, through an AI SDK provider', () => {
  for (const [version, make] of [['V3 (AI SDK 6)', v3], ['V2 (AI SDK 5)', v2]] as const) {
    it(`${version}: TRANSPORT (retryable), after the text that arrived — not a complete answer`, async () => {
      server.reply(sse(beforeFinish, { done: false }))
      const { chunks, error } = await run(make(server.url))
      expect(text(chunks)).not.toBe('')
      expect(chunks.some((c) => c.type === 'finish')).toBe(false)
      expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
      expect(error!.message).toMatch(/^openai\.chat ended the stream before the response was complete \(.*\): the response may be incomplete\.$/)
    })

    it(`${version}: the whole recorded stream still ends with stop`, async () => {
      server.reply(sse(recorded))
      const { chunks, error } = await run(make(server.url))
      expect(error).toBeUndefined()
      expect(chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
    })
  }

  it("V3: a finish reason of the server's own (raw, unified 'other') is a response that ended: stop, as the openai adapter counts it", async () => {
    server.reply(sse([chunk({ content: 'hi' }), chunk({}, 'eos')]))
    const { chunks, error } = await run(v3(server.url))
    expect(error).toBeUndefined()
    expect(chunks).toEqual([{ type: 'text-delta', text: 'hi' }, { type: 'finish', reason: 'stop' }])
  })
})

// Review Y7: through the real `@ai-sdk/openai` (3.x, AI SDK 6) and `@ai-sdk/openai-compatible`
// (2.x). A complete stream whose server never gave a finish_reason (the usage, then [DONE]) is a
// complete answer for the openai adapter; through the bridge it was TRANSPORT — re-sent, and paid,
// on every retry — with @ai-sdk/openai ({ unified: 'other', raw: undefined }), and
// MALFORMED_RESPONSE with @ai-sdk/openai-compatible (an error part "Response stream ended without a
// finish reason."). A stream cut before its finish_reason stays TRANSPORT (retryable) in all three,
// and so does a connection reset mid-answer.
describe('a stream without a finish_reason, through the real AI SDK providers and the openai adapter', () => {
  const adapters: Array<[string, () => ModelAdapter]> = [
    ['@ai-sdk/openai', () => aiSdk({ model: createOpenAI({ baseURL: server.url, apiKey: 'test-key' }).chat('gpt-4.1-nano') })],
    ['@ai-sdk/openai-compatible', () => aiSdk({ model: createOpenAICompatible({ name: 'local', baseURL: server.url, apiKey: 'test-key', includeUsage: true }).chatModel('gpt-4.1-nano') })],
    ['the openai adapter', () => openai({ baseURL: server.url, model: 'gpt-4.1-nano' })],
  ]
  const whole = recorded.map((payload) => JSON.parse(payload)?.choices?.[0]?.delta?.content ?? '').join('')
  /** The recorded stream as a server that never sends a finish_reason answers it: complete, usage, [DONE]. */
  const noFinishReason = recorded.map((payload) => payload.replace('"finish_reason":"stop"', '"finish_reason":null'))

  for (const [name, make] of adapters) {
    it(`${name}: complete, with its usage, then [DONE] — a complete answer (stop), not an error to retry`, async () => {
      server.reply(sse(noFinishReason))
      const { chunks, error } = await run(make())
      expect(error).toBeUndefined()
      expect(text(chunks)).toBe(whole)
      expect(chunks.find((c) => c.type === 'usage')).toMatchObject({ usage: { inputTokens: 16, outputTokens: 300 } })
      // The openai adapter gives no finish chunk when the server gave no reason (the loop reads it as stop).
      expect(chunks.filter((c) => c.type === 'finish')).toEqual(name === 'the openai adapter' ? [] : [{ type: 'finish', reason: 'stop' }])
    })

    it(`${name}: cut before its finish_reason (no usage, no [DONE]) — TRANSPORT, retryable, after the text that came`, async () => {
      server.reply(sse(beforeFinish, { done: false }))
      const { chunks, error } = await run(make())
      expect(text(chunks)).not.toBe('')
      expect(chunks.some((c) => c.type === 'finish')).toBe(false)
      expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    })

    // The connection reset mid-answer: `@ai-sdk/provider-utils` 4 reports the failed read as an
    // APICallError "Failed to process successful response" with status 200 and undici's
    // "terminated" as its cause, which the bridge typed by the status (INVALID_REQUEST, not retried).
    it(`${name}: the connection reset mid-answer — TRANSPORT, retryable, not an "HTTP 200" invalid request`, async () => {
      server.reply(reset(beforeFinish.slice(0, Math.floor(beforeFinish.length / 2))))
      const { chunks, error } = await run(make())
      expect(text(chunks)).not.toBe('')
      expect(chunks.some((c) => c.type === 'finish')).toBe(false)
      expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
      expect((error as { status?: number }).status).toBeUndefined()
      expect(error!.message).not.toMatch(/HTTP 200|Failed to process successful response/)
      expect(error!.message).toMatch(/terminated|other side closed/)
    })
  }
})
