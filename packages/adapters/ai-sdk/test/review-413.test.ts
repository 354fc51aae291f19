// Review Y2: through the bridge, an HTTP 413 is decided by its words as in the native adapters (the
// kit's rule, ModelError.codeForStatus) — it was CONTEXT_WINDOW_EXCEEDED whatever it said. The
// model is a minimal provider that POSTs to a real local server and throws an APICallError
// of the failed response, as @ai-sdk/provider-utils does (isRetryable false for a 413).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModelV2 } from '@ai-sdk/provider'
import { modelErrorFromResponse, tooLargeHint } from '@bosun/core'
import type { ModelRequest } from '@bosun/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { startServer, status, type TestServer } from '../../openai/src/testing/server.js'
import { GROQ_TPM, NGINX_413, RATE_LIMIT_413 } from '../../openai/src/testing/too-large.js'
import { aiSdk } from '../src/index.js'
import { apiCallError, mockV2 } from './mock-model.js'

function httpModel(url: string): LanguageModelV2 {
  return {
    specificationVersion: 'v2', provider: 'groq.chat', modelId: 'llama-3.3-70b-versatile', supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ abortSignal }) {
      const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}', signal: abortSignal ?? null })
      const responseBody = await response.text()
      let message = response.statusText
      try {
        message = (JSON.parse(responseBody) as { error: { message: string } }).error.message
      } catch {
        // not JSON: the status text, as the provider's error handler falls back to
      }
      throw apiCallError({ message, statusCode: response.status, responseBody, responseHeaders: Object.fromEntries(response.headers), isRetryable: false })
    },
  }
}

let server: TestServer
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const ask = (params: ModelRequest['params'] = {}): ModelRequest => ({ system: '', messages: [], tools: [], params })

async function failure(adapter = aiSdk({ model: httpModel(server.url) }), request = ask()) {
  try {
    for await (const _ of adapter.stream(request, { signal: new AbortController().signal })) {
      // nothing streams: the request fails
    }
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the request did not fail')
}

describe('HTTP 413 through an AI SDK provider', () => {
  it("a proxy's byte limit: INVALID_REQUEST, not retryable, saying compaction would not help", async () => {
    server.reply(status(413, NGINX_413, { 'content-type': 'text/html' }))
    const error = await failure()
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error.message).toMatch(/compacting the conversation would not help/)
  })

  it("a 413 in rate-limit words: RATE_LIMIT and retryable (whatever the SDK's isRetryable), with its reset header's wait", async () => {
    server.reply(status(413, RATE_LIMIT_413, { 'x-ratelimit-reset-tokens': '7.5s' }))
    expect(await failure()).toMatchObject({ code: 'RATE_LIMIT', status: 413, retryable: true, retryAfterMs: 7500 })
  })

  // Review Y7: a request alone over the per-minute limit (Requested > Limit) is never let through.
  it("Groq's 413 for a request over the whole per-minute limit: CONTEXT_WINDOW_EXCEEDED, not retryable, saying what to do", async () => {
    server.reply(status(413, GROQ_TPM, { 'x-ratelimit-reset-tokens': '7.5s' }))
    const error = await failure()
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
    expect(error.message).toMatch(/this request alone is over the limit: 18657 tokens.* where 12000 per minute are allowed.*lower maxTokens/)
  })

  it('a 413 whose message counts the context stays CONTEXT_WINDOW_EXCEEDED', async () => {
    server.reply(status(413, JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens." } })))
    expect(await failure()).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
  })

  it("an error part of Anthropic's request_too_large (@ai-sdk/anthropic) is typed by its words too", async () => {
    const part = (message: string) => [{ type: 'error' as const, error: { type: 'error', error: { type: 'request_too_large', message } } }]
    const model = mockV2({ provider: 'anthropic.messages', responses: [part('Request exceeds the maximum allowed number of bytes.'), part('prompt is too long: 210000 tokens > 200000 maximum')] })
    const codes: unknown[] = []
    for (let i = 0; i < 2; i++) {
      try {
        for await (const _ of aiSdk({ model }).stream({ system: '', messages: [], tools: [], params: {} }, { signal: new AbortController().signal })) {
          // the error part
        }
      } catch (error) {
        codes.push((error as { code?: string }).code)
      }
    }
    expect(codes).toEqual(['INVALID_REQUEST', 'CONTEXT_WINDOW_EXCEEDED'])
  })

  // Review Y6: the bridge kept its own copy of the kit's 413 hints; it says the kit's words now.
  it("says what to do in the kit's words (tooLargeHint), as a native adapter does for the same answer", async () => {
    for (const [body, code] of [[NGINX_413, 'INVALID_REQUEST'], [RATE_LIMIT_413, 'RATE_LIMIT'], [GROQ_TPM, 'CONTEXT_WINDOW_EXCEEDED']] as const) {
      server.reply(status(413, body))
      const error = await failure()
      expect(error.code).toBe(code)
      expect(tooLargeHint(code, body)).not.toBe('')
      expect(error.message.endsWith(tooLargeHint(code, body))).toBe(true)
      expect(modelErrorFromResponse('groq', 413, new Headers(), body).message).toContain(tooLargeHint(code, body))
    }
  })
})

// Review G1: through the bridge as in the native adapters, Groq's 413 "Request too large … (TPM):
// Limit 12000, Requested 18657" whose request's max tokens ALONE are at or over the limit is
// INVALID_REQUEST saying to lower maxTokens — not CONTEXT_WINDOW_EXCEEDED, on which the compaction
// plugin would compact for nothing (it shrinks the prompt, never the output budget). A real AI SDK
// provider (@ai-sdk/openai-compatible) sends the request to the real local server.
const groq = () => createOpenAICompatible({ name: 'groq', baseURL: server.url, apiKey: 'test-key' }).chatModel('llama-3.3-70b-versatile')

describe("Groq's 413 through the bridge when maxTokens alone is at or over the per-minute limit", () => {
  it('the option maxTokens over the limit: INVALID_REQUEST, not retryable, naming maxTokens, its value and the limit', async () => {
    server.reply(status(413, GROQ_TPM, { 'x-ratelimit-reset-tokens': '7.5s' }))
    const error = await failure(aiSdk({ model: groq(), maxTokens: 16000 }))
    expect(server.requests[0]!.body.max_tokens).toBe(16000)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error.message).toMatch(/maxTokens \(16000, sent as maxOutputTokens\) is alone at or over the limit of 12000 tokens per minute/)
    expect(error.message).toMatch(/set maxTokens below 12000/)
    expect(error.message).not.toMatch(/compact the conversation \(/)
  })

  it('params.maxTokens of the request decides, at the limit too', async () => {
    server.reply(status(413, GROQ_TPM))
    const error = await failure(aiSdk({ model: groq(), maxTokens: 1000 }), ask({ maxTokens: 12000 }))
    expect(server.requests[0]!.body.max_tokens).toBe(12000)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
    expect(error.message).toMatch(/maxTokens \(12000, sent as maxOutputTokens\)/)
  })

  it('under the limit, or with no maxTokens: CONTEXT_WINDOW_EXCEEDED, as before', async () => {
    server.reply(status(413, GROQ_TPM), status(413, GROQ_TPM))
    expect(await failure(aiSdk({ model: groq(), maxTokens: 4000 }))).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413 })
    expect(await failure(aiSdk({ model: groq() }))).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413 })
  })

  it('an error part of request_too_large in those words (an Anthropic-compatible gateway): the same rule', async () => {
    const { message } = (JSON.parse(GROQ_TPM) as { error: { message: string } }).error
    const model = mockV2({ provider: 'anthropic.messages', responses: [[{ type: 'error', error: { type: 'error', error: { type: 'request_too_large', message } } }]] })
    const error = await failure(aiSdk({ model, maxTokens: 16000 }))
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(error.message).toMatch(/maxTokens \(16000, sent as maxOutputTokens\) is alone at or over the limit of 12000/)
  })
})
