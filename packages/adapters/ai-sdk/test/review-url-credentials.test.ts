// Security review of fc9e6e4, which refused a baseURL with user:password@ in anthropic() and
// openai() because fetch refuses such a URL on every request with a TypeError quoting it whole.
// Through the AI SDK the provider builds the URL from its own baseURL (`createOpenAI({ baseURL })`)
// and @ai-sdk/provider-utils passes that TypeError on untouched: aiSdk() made it a retryable
// SERVER error quoting the URL, password included, in its message and cause.
import type { LanguageModelV2 } from '@ai-sdk/provider'
import { serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../../openai/src/testing/server.js'
import { aiSdk, fetchWithoutRedirects } from '../src/index.js'

const PASSWORD = 'pw-Q7fK2mX9vR4tL8nB'

/** A provider as @ai-sdk/openai is one: it fetches `<baseURL>/chat/completions` and lets fetch's own errors through. */
function providerAt(baseURL: string, fetch: typeof globalThis.fetch): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: 'openai.chat',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ abortSignal }) {
      const response = await fetch(`${baseURL}/chat/completions`, { method: 'POST', body: '{}', signal: abortSignal ?? null })
      throw new Error(`not expected to get an answer (HTTP ${response.status})`)
    },
  }
}

async function failure(model: LanguageModelV2): Promise<Error & { code?: string; retryable?: boolean }> {
  try {
    for await (const chunk of aiSdk({ model }).stream({ system: '', messages: [], tools: [], params: {} }, { signal: new AbortController().signal })) void chunk
  } catch (error) {
    return error as Error & { code?: string; retryable?: boolean }
  }
  throw new Error('the call succeeded')
}

const shown = (error: Error): string => `${error.message}\n${JSON.stringify(serializeError(error))}\n${inspect(error, { depth: 10 })}`

let server: TestServer
beforeEach(async () => {
  server = await startServer()
})
afterEach(async () => {
  await server.close()
})

describe('aiSdk(): a provider whose baseURL carries user:password@ (review)', () => {
  for (const [name, fetch] of [['fetch', globalThis.fetch], ['fetchWithoutRedirects', fetchWithoutRedirects]] as const) {
    it(`through ${name}: INVALID_REQUEST, not retried, the URL not shown; the server gets nothing`, async () => {
      const url = new URL(server.url)
      const error = await failure(providerAt(`${url.protocol}//user:${PASSWORD}@${url.host}/v1`, fetch))
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
      expect(error.message).toContain('user:password@')
      expect(error.message).toContain('openai.chat')
      expect(shown(error)).not.toContain(PASSWORD.slice(0, 8))
      expect(server.requests).toEqual([])
    })
  }

  it('a password-less user@ too', async () => {
    const url = new URL(server.url)
    const error = await failure(providerAt(`${url.protocol}//${PASSWORD}@${url.host}/v1`, globalThis.fetch))
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(shown(error)).not.toContain(PASSWORD.slice(0, 8))
  })
})
