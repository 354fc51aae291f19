// Security review: ANTHROPIC_API_KEY, the default apiKeyEnv, was sent as x-api-key to whatever
// baseURL was set — a proxy, another provider's Anthropic-compatible API — so a user pointing the
// adapter at another server handed it their Anthropic key. It now goes to api.anthropic.com only
// (as OPENAI_API_KEY goes to api.openai.com only); another server gets a key only when its variable
// is named. A real HTTP server on 127.0.0.1.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { anthropic } from './adapter.js'
import { ask, collect, serverAt, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, status, type FakeServer } from './testing/server.js'

const ANTHROPIC_KEY = 'sk-ant-api03-DEFAULT-VARIABLE-KEY-0001'
const UNAUTHORIZED = '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
const ANSWER = [
  { type: 'message_start', message: { id: 'm', model: 'claude-test', usage: { input_tokens: 1, output_tokens: 0 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
]

let server: FakeServer
let saved: string | undefined
beforeAll(warmUpFetch)
beforeEach(async () => {
  saved = process.env.ANTHROPIC_API_KEY
  process.env.ANTHROPIC_API_KEY = ANTHROPIC_KEY
  server = await fakeServer()
})
afterEach(async () => {
  if (saved === undefined) delete process.env.ANTHROPIC_API_KEY
  else process.env.ANTHROPIC_API_KEY = saved
  await server.close()
})

const run = (options: { apiKeyEnv?: string; headers?: Record<string, string> } = {}) =>
  collect(anthropic({ model: 'claude-test', baseURL: server.baseURL, ...options }).stream(ask(), { signal: new AbortController().signal }))

describe('the default ANTHROPIC_API_KEY goes to api.anthropic.com only', () => {
  it('another baseURL gets no x-api-key when apiKeyEnv is not named; its 401 says how to send one', async () => {
    server.reply(status(401, UNAUTHORIZED))
    const { error } = await run()
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined()
    expect(error).toMatchObject({ code: 'AUTH', status: 401, retryable: false })
    expect(error!.message).toBe(
      `${serverAt(server.baseURL)} answered HTTP 401: invalid x-api-key (no key was sent: ANTHROPIC_API_KEY goes to api.anthropic.com only. Name the variable holding this server's key with the option apiKeyEnv — "apiKeyEnv": "ANTHROPIC_API_KEY" for a proxy that takes your Anthropic key — for ${server.baseURL})`,
    )
  })

  it('nor through headers: x-api-key is never taken from them', async () => {
    server.reply(status(401, UNAUTHORIZED))
    await run({ headers: { 'x-api-key': 'from-headers' } })
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined()
  })

  it('a server that needs no key is served without ANTHROPIC_API_KEY set', async () => {
    delete process.env.ANTHROPIC_API_KEY
    server.reply(events(ANSWER))
    const { chunks, error } = await run()
    expect(error).toBeUndefined()
    expect(chunks.some((chunk) => chunk.type === 'text-delta' && chunk.text === 'hi')).toBe(true)
    expect(server.requests[0]!.headers['x-api-key']).toBeUndefined()
  })

  it('naming the variable sends its key to that server', async () => {
    server.reply(events(ANSWER))
    const { error } = await run({ apiKeyEnv: 'ANTHROPIC_API_KEY' })
    expect(error).toBeUndefined()
    expect(server.requests[0]!.headers['x-api-key']).toBe(ANTHROPIC_KEY)
  })

  it('api.anthropic.com still needs the key: anthropic() refuses to start without it', () => {
    delete process.env.ANTHROPIC_API_KEY
    expect(() => anthropic({ model: 'claude-test' })).toThrow(expect.objectContaining({ code: 'AUTH', message: 'The Anthropic API key is missing: set the environment variable ANTHROPIC_API_KEY (or name another one with the option apiKeyEnv).' }))
  })
})

describe('api.anthropic.com over plain http', () => {
  it('is refused when the adapter is made, before a key could cross the network unencrypted — by default or named', () => {
    for (const options of [{}, { apiKeyEnv: 'ANTHROPIC_API_KEY' }]) {
      let thrown: unknown
      try {
        anthropic({ model: 'claude-test', baseURL: 'http://api.anthropic.com', ...options })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toMatchObject({ code: 'AUTH', retryable: false })
      expect((thrown as Error).message).toBe('The baseURL http://api.anthropic.com would send the Anthropic API key unencrypted: write https://api.anthropic.com (or leave baseURL out).')
      expect((thrown as Error).message).not.toContain(ANTHROPIC_KEY)
    }
  })
})
