// Issue 13 through the AI SDK bridge: the provider package does the HTTP, so Bosun's guarantees
// hold when it is given Bosun's fetch (`createOpenAI({ fetch: fetchWithoutRedirects })`). The
// model here is a minimal provider of that kind: it POSTs with its key through the fetch it was
// given, wraps a failed error-body read in an APICallError (as @ai-sdk/provider-utils does) and
// streams the `data:` payloads of a real server as AI SDK parts.
import type { LanguageModelV2, LanguageModelV2StreamPart } from '@ai-sdk/provider'
import { serializeError } from '@bosun/core'
import type { ModelChunk } from '@bosun/core'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { allClosed, bystander, forever, gzipBomb, REDIRECTS, redirect, warmUpFetch, type Bystander } from '../../openai/src/testing/hostile.js'
import { advanceWhilePending, byHand, DEADLINE_CLOCK, pending, pull } from '../../openai/src/testing/by-hand.js'
import { startServer, status, type TestServer } from '../../openai/src/testing/server.js'
import { aiSdk, fetchWithoutRedirects } from '../src/index.js'
import { apiCallError } from './mock-model.js'

const KEY = 'sk-test-aisdk-0123456789abcdef'

function httpModel(url: string, fetch: typeof globalThis.fetch): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: 'http.chat',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ abortSignal }) {
      const response = await fetch(url, { method: 'POST', headers: { 'x-api-key': KEY, 'x-tenant': 'seven' }, body: '{}', signal: abortSignal ?? null })
      if (!response.ok) {
        const body = await response.text().catch((cause: unknown) => {
          throw Object.assign(apiCallError({ message: 'Failed to process error response', statusCode: response.status }), { cause })
        })
        throw apiCallError({ message: body.slice(0, 100), statusCode: response.status })
      }
      const decoder = new TextDecoderStream()
      let buffer = ''
      const parts = response.body!.pipeThrough(decoder).pipeThrough(
        new TransformStream<string, LanguageModelV2StreamPart>({
          transform(text, controller) {
            buffer += text
            const events = buffer.split('\n\n')
            buffer = events.pop()!
            for (const event of events) if (event.startsWith('data: ')) controller.enqueue(JSON.parse(event.slice(6)) as LanguageModelV2StreamPart)
          },
        }),
      )
      return { stream: parts }
    },
  }
}

let server: TestServer
let other: Bystander
beforeAll(warmUpFetch)
beforeEach(async () => {
  ;[server, other] = await Promise.all([startServer(), bystander()])
})
afterEach(async () => {
  await Promise.all([server.close(), other.close()])
})

async function collect(options: Partial<Parameters<typeof aiSdk>[0]> = {}) {
  const chunks: ModelChunk[] = []
  try {
    for await (const chunk of aiSdk({ model: httpModel(server.url, fetchWithoutRedirects), ...options }).stream(
      { system: '', messages: [], tools: [], params: {} },
      { signal: new AbortController().signal },
    )) chunks.push(chunk)
    return { chunks, error: undefined }
  } catch (error) {
    return { chunks, error: error as Error & { code?: string } }
  }
}

const part = (value: LanguageModelV2StreamPart): string => `data: ${JSON.stringify(value)}\n\n`

describe('an AI SDK provider given fetchWithoutRedirects', () => {
  for (const status of REDIRECTS) {
    it(`HTTP ${status}: the other origin receives nothing; PROVIDER_REDIRECT names its origin only`, async () => {
      server.reply(redirect(status, `${other.origin}/v1/chat?token=s3cr3t-path-token`))
      const { error } = await collect()
      expect(other.requests).toEqual([])
      expect(error).toMatchObject({ code: 'PROVIDER_REDIRECT', status, retryable: false })
      expect(error!.message).toContain(`redirecting to ${other.origin}.`)
      expect(JSON.stringify(serializeError(error))).not.toMatch(/s3cr3t-path-token|\/v1\/chat|sk-test/)
    })
  }

  it('a gzip bomb as the error body: RESPONSE_TOO_LARGE, through the provider\'s APICallError', async () => {
    server.reply(gzipBomb(500, 'application/json', 4))
    const { error } = await collect()
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 500, retryable: false })
  })

  it('parts that are not content (metadata, empty deltas) do not hold the call open: TIMEOUT', async () => {
    server.reply(forever(part({ type: 'text-delta', id: '0', delta: '' }) + part({ type: 'response-metadata', id: 'r' }), 20, part({ type: 'stream-start', warnings: [] })))
    const { chunks, error } = await collect({ idleTimeoutMs: 200 })
    expect(chunks).toEqual([])
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true })
    await allClosed(server.requests)
  })

  it('timeoutMs ends a call that streams text but never finishes', async () => {
    // The deadline's clock is faked and moved by the test, the text sent by hand (as in the openai
    // adapter's deadlines.test.ts): on the real clock a busy machine let the 200 ms run out before
    // the first text arrived (no chunk). One exchange on the real clock first, for fetch's own timers.
    server.reply(status(500, '{}'))
    await collect()
    vi.useFakeTimers(DEADLINE_CLOCK)
    try {
      const hand = byHand()
      server.reply(hand.reply)
      const more = part({ type: 'text-delta', id: '0', delta: 'more ' })
      const stream = pull(aiSdk({ model: httpModel(server.url, fetchWithoutRedirects), timeoutMs: 200 }), { system: '', messages: [], tools: [], params: {} })
      const first = stream.next()
      await hand.opened
      await hand.send(more)
      expect(await first).toEqual({ chunk: { type: 'text-delta', text: 'more ' } })
      const second = stream.next()
      await advanceWhilePending(second, 150, 'ended before timeoutMs')
      await hand.send(more)
      expect(await second).toEqual({ chunk: { type: 'text-delta', text: 'more ' } })
      const last = stream.next()
      expect(await pending(last), 'ended before timeoutMs').toBe(true)
      await vi.advanceTimersByTimeAsync(50)
      expect(await last).toMatchObject({ error: { code: 'TIMEOUT', message: 'http.chat did not complete the response within timeoutMs (200 ms).' } })
      await allClosed(server.requests)
    } finally {
      vi.useRealTimers()
    }
  })
})
