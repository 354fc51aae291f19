// A provider package pointed at a gateway (`createOpenAI({ baseURL: 'http://127.0.0.1:4000/v1' })`)
// still has the provider's id (`openai.chat`, `anthropic.messages`): the bridge said
// `openai.chat answered HTTP 401`, so a user whose gateway refused the key was not told which
// server answered. The AI SDK's APICallError carries the request's `url`: its host names the server
// (the adapter kit's serverLabel, as the native adapters name theirs), never its path or query.
// The real providers against a real local server.
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { chunk, reset, startServer, status, type TestServer } from '../../openai/src/testing/server.js'
import { authHint } from '../src/hints.js'
import { aiSdk } from '../src/index.js'
import { apiCallError, mockV2 } from './mock-model.js'

const PATH_SECRET = 'q-path-secret-7Hk2'

let server: TestServer
let host: string
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
  host = new URL(server.url).host
})
afterAll(() => server.close())
beforeEach(() => server.reset())

type Model = Parameters<typeof aiSdk>[0]['model']
const models: Array<[string, (baseURL: string) => Model]> = [
  ['@ai-sdk/openai', (baseURL) => createOpenAI({ baseURL, apiKey: 'gateway-key' }).chat('m')],
  ['@ai-sdk/openai-compatible', (baseURL) => createOpenAICompatible({ name: 'gateway', baseURL, apiKey: 'gateway-key' }).chatModel('m')],
]

async function failure(model: Model): Promise<Error & { code?: string; status?: number }> {
  try {
    for await (const _ of aiSdk({ model }).stream({ system: '', messages: [{ role: 'user', id: 'u1', content: [{ type: 'text', text: 'hi' }] }], tools: [], params: {} }, { signal: new AbortController().signal })) {
      // the request fails
    }
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the request did not fail')
}

/** The message, checked to show no path or query of the URL. */
function said(error: Error | undefined): string {
  expect(error?.message).toBeDefined()
  expect(error!.message).not.toContain(PATH_SECRET)
  return error!.message
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('an AI SDK provider pointed at a gateway: errors name the server that answered', () => {
  for (const [name, make] of models) {
    const provider = name === '@ai-sdk/openai' ? 'openai.chat' : 'gateway.chat'

    it(`${name}: an HTTP 401 names the server by its host, with the provider's id`, async () => {
      server.reply(status(401, JSON.stringify({ error: { message: 'invalid gateway key', type: 'authentication_error' } })))
      const error = await failure(make(`${server.url}/${PATH_SECRET}?token=${PATH_SECRET}`))
      expect(error).toMatchObject({ code: 'AUTH', status: 401 })
      expect(said(error)).toMatch(new RegExp(`^${escaped(provider)}: the server at ${escaped(host)} answered HTTP 401: invalid gateway key`))
    })

    it(`${name}: a connection reset mid-answer names the server`, async () => {
      server.reply(reset([chunk({ content: 'Hel' })]))
      const error = await failure(make(server.url))
      expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
      expect(said(error)).toMatch(new RegExp(`^${escaped(provider)}: the connection to the server at ${escaped(host)} failed while the answer streamed: `))
    })

    it(`${name}: a server that cannot be reached is named`, async () => {
      const closed = await closedPort()
      const error = await failure(make(`http://127.0.0.1:${closed}/v1/${PATH_SECRET}`))
      expect(error).toMatchObject({ code: 'TRANSPORT' })
      expect(said(error)).toMatch(new RegExp(`^${escaped(provider)}: the connection to the server at 127\\.0\\.0\\.1:${closed} failed: `))
    })
  }

  it("a provider's own API is named as the provider (by the URL's host, not the provider's id)", async () => {
    const refusal = apiCallError({ message: 'invalid x-api-key', statusCode: 401 })
    const model = mockV2({ provider: 'anthropic.messages', responses: [{ throws: Object.assign(refusal, { url: 'https://api.anthropic.com/v1/messages' }) }] })
    expect((await failure(model)).message).toBe(`anthropic.messages: Anthropic answered HTTP 401: invalid x-api-key${authHint('anthropic.messages')}`)
    const proxied = apiCallError({ message: 'invalid x-api-key', statusCode: 401 })
    const viaGateway = mockV2({ provider: 'anthropic.messages', responses: [{ throws: Object.assign(proxied, { url: `http://gateway.internal:4000/anthropic/v1/messages?key=${PATH_SECRET}` }) }] })
    expect(said(await failure(viaGateway))).toBe(`anthropic.messages: the server at gateway.internal:4000 answered HTTP 401: invalid x-api-key${authHint('anthropic.messages')}`)
  })
})

/** A port on 127.0.0.1 that nothing listens on: a server's, closed. */
async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}
