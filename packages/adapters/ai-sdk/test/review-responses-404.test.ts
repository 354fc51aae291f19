// Review Y11: `openai('…')` from @ai-sdk/openai 3 asks the Responses API (`/v1/responses`), which an
// OpenAI-compatible server (llama.cpp, vLLM, a replay server) does not have: it answers 404 and the
// turn ended `openai.responses answered HTTP 404: Not Found` with nothing to say what to do. The
// real provider against a real local server: the 404 of a Responses model now names openai.chat.
import { createOpenAI } from '@ai-sdk/openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { startServer, status, type TestServer } from '../../openai/src/testing/server.js'
import { aiSdk } from '../src/index.js'

let server: TestServer
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

async function failure(model: Parameters<typeof aiSdk>[0]['model']) {
  try {
    for await (const _ of aiSdk({ model }).stream({ system: '', messages: [{ role: 'user', id: 'u1', content: [{ type: 'text', text: 'hi' }] }], tools: [], params: {} }, { signal: new AbortController().signal })) {
      // nothing streams: the request fails
    }
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the request did not fail')
}

describe('a 404 from a server without the Responses API', () => {
  it('openai(…) (openai.responses): INVALID_REQUEST with a hint to use openai.chat(…)', async () => {
    const provider = createOpenAI({ baseURL: server.url, apiKey: 'sk-test-responses-0123456789' })
    server.reply(status(404, 'Not Found', { 'content-type': 'text/plain' }))
    const error = await failure(provider('gpt-4.1-nano'))
    expect(server.requests[0]?.path).toBe('/v1/responses')
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(error.message).toMatch(/^openai\.responses: the server at 127\.0\.0\.1:\d+ answered HTTP 404: Not Found\. .*Responses API.*for a Chat Completions server use openai\.chat\('gpt-4\.1-nano'\)$/)
  })

  it('openai(…) whose model the server does not know (OpenAI\'s model_not_found): no such hint, the server has the Responses API', async () => {
    const provider = createOpenAI({ baseURL: server.url, apiKey: 'sk-test-responses-0123456789' })
    const body = { error: { message: 'The model `gpt-4.1-nanoo` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' } }
    server.reply(status(404, JSON.stringify(body)))
    const error = await failure(provider('gpt-4.1-nanoo'))
    expect(server.requests[0]?.path).toBe('/v1/responses')
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(error.message).toContain('does not exist')
    expect(error.message).not.toMatch(/openai\.chat\(|Responses API/)
  })

  it('openai.chat(…) that gets a 404: no such hint (it already asks Chat Completions)', async () => {
    const provider = createOpenAI({ baseURL: server.url, apiKey: 'sk-test-responses-0123456789' })
    server.reply(status(404, JSON.stringify({ error: { message: 'The model `nope` does not exist' } })))
    const error = await failure(provider.chat('nope'))
    expect(server.requests[0]?.path).toBe('/v1/chat/completions')
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(error.message).not.toMatch(/openai\.chat\(/)
  })
})
