import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './index.js'
import { run } from './testing/helpers.js'
import { startServer, status, type TestServer } from './testing/server.js'

// A 401/403 says what to do about the key that was (or was not) sent: a keyless local server
// (Ollama, vLLM started with --api-key) was told to "check the variable" although no key went out.

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())
afterEach(() => {
  delete process.env.X3_LOCAL_KEY
})

const refused = (code: number) => status(code, '{"error":{"message":"Unauthorized"}}')

describe('openai: what a 401 or 403 says', () => {
  it('no key sent (another server than api.openai.com, no apiKeyEnv): says none was sent and how to give one', async () => {
    for (const code of [401, 403]) {
      server.reset()
      server.reply(refused(code))
      const { error } = await run(openai({ baseURL: server.url, model: 'm' }))
      expect([error?.code, error?.status, error?.retryable]).toEqual(['AUTH', code, false])
      expect(error?.message).toBe(`The server at ${new URL(server.url).host} answered HTTP ${code}: Unauthorized (no key was sent: OPENAI_API_KEY goes to api.openai.com only. If ${server.url} needs a key, name the environment variable that holds it with the option apiKeyEnv, e.g. "apiKeyEnv": "VLLM_API_KEY")`)
      expect(server.requests[0]!.headers.authorization).toBeUndefined()
    }
  })

  it('a key sent from apiKeyEnv: names the variable, never its value', async () => {
    process.env.X3_LOCAL_KEY = 'sk-local-4242-hush'
    server.reply(refused(401))
    const { error } = await run(openai({ baseURL: server.url, model: 'm', apiKeyEnv: 'X3_LOCAL_KEY' }))
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-local-4242-hush')
    expect(error?.code).toBe('AUTH')
    expect(error?.message).toContain(`Unauthorized (check that the environment variable X3_LOCAL_KEY, named by apiKeyEnv, holds a valid key for ${server.url})`)
    expect(error?.message).not.toContain('no key was sent')
    expect(error?.message).not.toContain('4242')
  })

  it('an authorization given in headers (no apiKeyEnv): points at that header, not at a variable', async () => {
    server.reply(refused(403))
    const { error } = await run(openai({ baseURL: server.url, model: 'm', headers: { Authorization: 'Bearer from-headers-77' } }))
    expect(server.requests[0]!.headers.authorization).toBe('Bearer from-headers-77')
    expect(error?.message).toContain(`Unauthorized (no key from apiKeyEnv was sent: check the authorization given in the option headers for ${server.url})`)
    expect(error?.message).not.toContain('from-headers-77')
  })
})

describe('openai: api.openai.com over plain http', () => {
  it('is refused when the adapter is made, before a key could cross the network unencrypted — by default or named', () => {
    const saved = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-plain-http-test-0001'
    try {
      for (const options of [{}, { apiKeyEnv: 'OPENAI_API_KEY' }]) {
        let thrown: unknown
        try {
          openai({ model: 'gpt-test', baseURL: 'http://api.openai.com/v1', ...options })
        } catch (error) {
          thrown = error
        }
        expect(thrown).toMatchObject({ code: 'CONFIG_INVALID', details: { option: 'baseURL' } })
        expect((thrown as Error).message).toBe('openai(): baseURL http://api.openai.com would send the API key unencrypted: write https://api.openai.com/v1 (or leave baseURL out).')
        expect((thrown as Error).message).not.toContain('sk-plain-http-test-0001')
      }
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })
})
