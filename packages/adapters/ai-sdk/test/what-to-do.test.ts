// U3 walk: through the bridge, a provider's refusal said what happened and not what to do — a 401
// ended `openai.chat: the server at … answered HTTP 401: Incorrect API key provided: sk-test****3456.`
// where the `openai` adapter says which key to check; a 404 for a misspelt model, a context window
// exceeded and an exhausted quota likewise. The real @ai-sdk/openai provider against a real local
// server, and a model that puts the provider's error in its stream.
import { createOpenAI } from '@ai-sdk/openai'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import type { ModelError } from '@bosun/core'
import { describe, expect, it } from 'vitest'
import { status } from '../../openai/src/testing/server.js'
import { aiSdk } from '../src/index.js'
import { useLocalServer } from './local-server.js'
import { finishV3, mockV4 } from './mock-model.js'

const local = useLocalServer()

const KEY = 'sk-test-what-to-do-0123456789'
const request = { system: '', messages: [{ role: 'user' as const, id: 'u1', content: [{ type: 'text' as const, text: 'hi' }] }], tools: [], params: {} }

async function failure(model: Parameters<typeof aiSdk>[0]['model']): Promise<ModelError> {
  try {
    for await (const _ of aiSdk({ model }).stream(request, { signal: new AbortController().signal })) {
      // the request fails
    }
  } catch (error) {
    return error as ModelError
  }
  throw new Error('the request did not fail')
}

const refusal = (message: string, type: string, code: string) => JSON.stringify({ error: { message, type, param: null, code } })

describe('an HTTP refusal through the bridge says what to do', () => {
  it('401: check the key the provider was created with (its apiKey, or OPENAI_API_KEY), never quoting it', async () => {
    local.server.reply(status(401, refusal('Incorrect API key provided: sk-test****6789.', 'invalid_request_error', 'invalid_api_key')))
    const error = await failure(createOpenAI({ baseURL: local.server.url, apiKey: KEY }).chat('gpt-4.1-nano'))
    expect(error).toMatchObject({ code: 'AUTH', status: 401 })
    expect(error.message).toMatch(/answered HTTP 401: Incorrect API key provided: sk-test\*\*\*\*6789\. \(check the API key the provider was created with: its apiKey option, or the environment variable it reads by default \(OPENAI_API_KEY for @ai-sdk\/openai\)\)$/)
    expect(error.message).not.toContain(KEY)
  })

  it('404 for a model the server does not know: check the model name, which it gives, and the baseURL', async () => {
    local.server.reply(status(404, refusal('The model `gpt-4.1-nanoo` does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found')))
    const error = await failure(createOpenAI({ baseURL: local.server.url, apiKey: KEY }).chat('gpt-4.1-nanoo'))
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(error.message).toMatch(/does not exist or you do not have access to it\. \(check the model name "gpt-4\.1-nanoo" and the provider's baseURL\)$/)
  })

  it('400 over the context window: compact it or start a new session, as the native adapters say', async () => {
    local.server.reply(status(400, refusal("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", 'invalid_request_error', 'context_length_exceeded')))
    const error = await failure(createOpenAI({ baseURL: local.server.url, apiKey: KEY }).chat('gpt-4.1-nano'))
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 400 })
    expect(error.message).toMatch(/\(the conversation is longer than the model accepts: compact it or start a new session\)$/)
  })

  it('429 insufficient_quota: the account has no quota left, retrying will not help', async () => {
    local.server.reply(status(429, refusal('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota')))
    const error = await failure(createOpenAI({ baseURL: local.server.url, apiKey: KEY }).chat('gpt-4.1-nano'))
    expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryable: false })
    expect(error.message).toMatch(/\(the account has no quota left: check its plan and billing; retrying will not help\)$/)
  })

  it('a 429 that passes with time gets no such words (the wait is the retry plugin\'s business)', async () => {
    local.server.reply(status(429, refusal('Rate limit reached for gpt-4.1-nano', 'requests', 'rate_limit_exceeded'), { 'retry-after': '1' }))
    const limited = await failure(createOpenAI({ baseURL: local.server.url, apiKey: KEY }).chat('gpt-4.1-nano'))
    expect(limited.message).toMatch(/HTTP 429: Rate limit reached for gpt-4\.1-nano$/)
  })
})

describe('an authentication error inside the stream says what to do too', () => {
  it("Anthropic's authentication_error part: AUTH, with the key to check (ANTHROPIC_API_KEY for @ai-sdk/anthropic)", async () => {
    const parts: LanguageModelV4StreamPart[] = [{ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, finishV3('error')]
    const error = await failure(mockV4({ provider: 'anthropic.messages', responses: [parts] }))
    expect(error.code).toBe('AUTH')
    expect(error.message).toBe(
      'anthropic.messages failed: invalid x-api-key (check the API key the provider was created with: its apiKey option, or the environment variable it reads by default (ANTHROPIC_API_KEY for @ai-sdk/anthropic))',
    )
  })

  it('a provider whose variable Bosun does not know: the generic words', async () => {
    const parts: LanguageModelV4StreamPart[] = [{ type: 'error', error: { type: 'authentication_error', message: 'bad key' } }, finishV3('error')]
    const error = await failure(mockV4({ provider: 'local-gateway.chat', responses: [parts] }))
    expect(error.message).toBe('local-gateway.chat failed: bad key (check the API key the provider was created with: its apiKey option, or the environment variable it reads by default)')
  })
})
