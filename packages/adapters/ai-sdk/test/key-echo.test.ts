// A provider's error text that echoes the API key, through the bridge: the bridge never sees the
// key (the provider package reads it), so it masks what looks like one (`maskCredentials` of
// @bosun/core) in the error it makes, and drops a cause that holds one. The model is a minimal
// provider of the @ai-sdk/* kind against a real HTTP server: it sends its key, turns an error
// response into an APICallError (message from the body, the body kept in `responseBody`) and
// streams the `data:` payloads it gets as AI SDK parts.
import { inspect } from 'node:util'
import type { LanguageModelV2, LanguageModelV2StreamPart } from '@ai-sdk/provider'
import { createAgent, serializeError } from '@bosun/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startServer, status, type TestServer } from '../../openai/src/testing/server.js'
import { authHint } from '../src/hints.js'
import { aiSdk } from '../src/index.js'
import { apiCallError } from './mock-model.js'

/** What a refusal of the key says to do through the bridge (the gateway's provider id names no known package). */
const KEY_HINT = authHint('gateway.chat')

/** A key with a provider's prefix, and one without (a self-hosted gateway's random token). */
const KEYS = ['sk-proj-Tq3xV9mLp2Wz7Rk4Nd8Hs1Jb', 'Zq8Xv2Lm9Pw4Rt7Yk1Nb6Hc3']

function keyedModel(url: string, key: string): LanguageModelV2 {
  return {
    specificationVersion: 'v2',
    provider: 'gateway.chat',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ abortSignal }) {
      const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: '{}', signal: abortSignal ?? null })
      if (!response.ok) {
        const body = await response.text()
        const message = (JSON.parse(body) as { error: { message: string } }).error.message
        throw apiCallError({ message, statusCode: response.status, responseBody: body })
      }
      const text = await response.text()
      const parts = text.split('\n\n').filter((event) => event.startsWith('data: ')).map((event) => JSON.parse(event.slice(6)) as LanguageModelV2StreamPart)
      return { stream: new ReadableStream({ start: (controller) => (parts.forEach((part) => controller.enqueue(part)), controller.close()) }) }
    },
  }
}

let server: TestServer
beforeEach(async () => {
  server = await startServer()
})
afterEach(async () => {
  await server.close()
})

const errorBody = (message: string) => JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } })
const ask = { system: '', messages: [], tools: [], params: {} }

async function failure(key: string): Promise<Error & { code?: string; status?: number; cause?: unknown }> {
  try {
    for await (const _ of aiSdk({ model: keyedModel(server.url, key) }).stream(ask, { signal: new AbortController().signal })) {
      // no content expected
    }
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the stream did not fail')
}

/** Everything a user or a log can be shown of an error: its message, its serialised form, and what console.error prints. */
const shown = (error: unknown) => `${(error as Error).message}\n${JSON.stringify(serializeError(error))}\n${inspect(error, { depth: 20 })}`

describe('a provider error that echoes the key', () => {
  for (const key of KEYS) {
    it(`an HTTP 401 body quoting the key (${key.slice(0, 6)}…): AUTH, the key masked, no cause`, async () => {
      server.reply(status(401, errorBody(`Incorrect API key provided: ${key}. You can find your API key in your dashboard.`)))
      const error = await failure(key)
      expect(error).toMatchObject({ code: 'AUTH', status: 401, retryable: false })
      expect(error.message).toBe('gateway.chat: the server at api.example.com answered HTTP 401: Incorrect API key provided: [redacted]. You can find your API key in your dashboard.' + KEY_HINT)
      expect(error.cause).toBeUndefined()
      expect(shown(error)).not.toContain(key.slice(0, 12))
    })
  }

  it('an error part in the stream quoting the key after Bearer', async () => {
    const key = KEYS[1]!
    server.reply(status(200, `data: ${JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `token Bearer ${key} was revoked` } })}\n\n`, { 'content-type': 'text/event-stream' }))
    const error = await failure(key)
    expect(error).toMatchObject({ code: 'AUTH', message: `gateway.chat failed: token Bearer [redacted] was revoked${KEY_HINT}` })
    expect(shown(error)).not.toContain(key.slice(0, 12))
  })

  it('the key only in the response body kept on the cause: the message stays, the cause goes', async () => {
    const key = KEYS[0]!
    server.reply(status(403, JSON.stringify({ error: { message: 'Forbidden' }, request: { headers: { authorization: `Bearer ${key}` } } })))
    const error = await failure(key)
    expect(error).toMatchObject({ code: 'AUTH', status: 403, message: 'gateway.chat: the server at api.example.com answered HTTP 403: Forbidden' + KEY_HINT })
    expect(error.cause).toBeUndefined()
    expect(shown(error)).not.toContain(key.slice(0, 12))
  })

  it('an error without anything like a key keeps its cause', async () => {
    server.reply(status(401, errorBody('Incorrect API key provided.')))
    const error = await failure(KEYS[0]!)
    expect(error.message).toBe('gateway.chat: the server at api.example.com answered HTTP 401: Incorrect API key provided.' + KEY_HINT)
    expect(error.cause).toMatchObject({ name: 'AI_APICallError', statusCode: 401 })
  })

  it('through createAgent: neither the turn/end event nor any other event holds the key', async () => {
    const key = KEYS[0]!
    server.reply(status(401, errorBody(`Incorrect API key provided: ${key}.`)))
    const agent = await createAgent({ model: aiSdk({ model: keyedModel(server.url, key) }) })
    agent.followup('hi')
    await agent.whenIdle()
    expect(agent.session.events.find((event) => event.type === 'turn/end')?.data).toMatchObject({
      reason: { kind: 'error', error: { code: 'AUTH', message: 'gateway.chat: the server at api.example.com answered HTTP 401: Incorrect API key provided: [redacted].' + KEY_HINT } },
    })
    expect(JSON.stringify(agent.session.events)).not.toContain(key.slice(0, 12))
  })
})

// The provider package reads its key from a variable the bridge cannot know: the values of the
// variables whose names say they are secrets are masked by value — a word-like key has no shape.
describe('a word-like key from a variable named as a secret', () => {
  const WORDLIKE = 'my-gateway-secret'
  const saved = { ...process.env }
  afterEach(() => {
    for (const name of ['X1_GATEWAY_API_KEY', 'X1_SHORT_TOKEN']) if (saved[name] === undefined) delete process.env[name]
  })

  it('an HTTP 401 body quoting it: masked in the error, no cause, no event holds it', async () => {
    process.env.X1_GATEWAY_API_KEY = WORDLIKE
    server.reply(status(401, errorBody(`Incorrect API key provided: ${WORDLIKE}. You can find your API key in your dashboard.`)))
    const error = await failure(WORDLIKE)
    expect(error.message).toBe('gateway.chat: the server at api.example.com answered HTTP 401: Incorrect API key provided: [redacted]. You can find your API key in your dashboard.' + KEY_HINT)
    expect(error.cause).toBeUndefined()
    expect(shown(error)).not.toContain(WORDLIKE)

    server.reply(status(401, errorBody(`Incorrect API key provided: ${WORDLIKE}.`)))
    const agent = await createAgent({ model: aiSdk({ model: keyedModel(server.url, WORDLIKE) }) })
    agent.followup('hi')
    await agent.whenIdle()
    expect(agent.session.events.find((event) => event.type === 'turn/end')?.data).toMatchObject({
      reason: { kind: 'error', error: { code: 'AUTH', message: 'gateway.chat: the server at api.example.com answered HTTP 401: Incorrect API key provided: [redacted].' + KEY_HINT } },
    })
    expect(JSON.stringify(agent.session.events)).not.toContain(WORDLIKE)
  })

  it('a value shorter than 6 characters is not masked: ordinary words stay', async () => {
    process.env.X1_SHORT_TOKEN = 'model'
    server.reply(status(401, errorBody('The model needs a key.')))
    const error = await failure('model')
    expect(error.message).toBe('gateway.chat: the server at api.example.com answered HTTP 401: The model needs a key.' + KEY_HINT)
  })
})
