// A provider package reports a stream chunk it could not parse or validate as an `error` part
// holding the AI SDK error (@ai-sdk/openai: `if (!chunk.success) controller.enqueue({ type:
// 'error', error: chunk.error })`): a JSONParseError or TypeValidationError. That is a malformed
// response, as the same error thrown is and as the native adapters type a malformed chunk — not a
// retryable SERVER error that the retry plugin would send again to get the same bytes.
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { ModelError } from '@bosun/core'
import type { ModelChunk } from '@bosun/core'
import { describe, expect, it } from 'vitest'
import { aiSdk } from '../src/index.js'
import { apiCallError, finishV3, mockV4 } from './mock-model.js'

const named = (name: string, message: string): Error => Object.assign(new Error(message), { name })

async function failure(error: unknown) {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'text-start', id: '0' },
    { type: 'text-delta', id: '0', delta: 'partial' },
    { type: 'error', error },
    finishV3('error'),
  ]
  const adapter = aiSdk({ model: mockV4({ provider: 'openai.chat', responses: [parts] }) })
  const chunks: ModelChunk[] = []
  try {
    for await (const chunk of adapter.stream({ system: '', messages: [], tools: [], params: {} }, { signal: new AbortController().signal })) chunks.push(chunk)
  } catch (thrown) {
    return { chunks, error: thrown as ModelError }
  }
  throw new Error('the stream did not fail')
}

describe('an error part holding an AI SDK error is typed by its name, as the error thrown is', () => {
  for (const name of ['AI_TypeValidationError', 'AI_JSONParseError']) {
    it(`${name}: MALFORMED_RESPONSE, not retryable, after the text streamed before it`, async () => {
      const { chunks, error } = await failure(named(name, 'Type validation failed: Value: {"choices":7}.'))
      expect(chunks).toEqual([{ type: 'text-delta', text: 'partial' }])
      expect(error).toBeInstanceOf(ModelError)
      expect([error.code, error.retryable]).toEqual(['MALFORMED_RESPONSE', false])
      expect(error.message).toContain('Type validation failed')
    })
  }

  it('an APICallError with a status: typed by the status, with its Retry-After', async () => {
    const { error } = await failure(apiCallError({ message: 'Rate limit reached', statusCode: 429, responseHeaders: { 'retry-after': '3' } }))
    expect([error.code, error.status, error.retryAfterMs, error.retryable]).toEqual(['RATE_LIMIT', 429, 3000, true])
  })

  // @ai-sdk/provider-utils wraps what failed while a 2xx answer was read in an APICallError of that
  // status ("Failed to process successful response"): typed by its cause, not as an HTTP 200.
  it('an APICallError of status 200 whose cause is a parse error: MALFORMED_RESPONSE, as that error', async () => {
    const parse = named('AI_JSONParseError', 'JSON parsing failed: Text: {"choices":.')
    const { error } = await failure(Object.assign(apiCallError({ message: 'Failed to process successful response', statusCode: 200 }), { cause: parse }))
    expect([error.code, error.retryable, error.status]).toEqual(['MALFORMED_RESPONSE', false, undefined])
    expect(error.message).toBe('openai.chat: JSON parsing failed: Text: {"choices":.')
  })

  it("a provider's own error object is typed by its type, as before", async () => {
    const { error } = await failure({ type: 'overloaded_error', message: 'Overloaded' })
    expect([error.code, error.retryable, error.message]).toEqual(['SERVER', true, 'openai.chat failed: Overloaded'])
  })
})
