import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './index.js'
import { run } from './testing/helpers.js'
import { startServer, status, type TestServer } from './testing/server.js'

// The option `provider` tags reasoning blocks: a gateway given `provider: "openai"` or "deepseek"
// (to pass a provider's reasoning back through it) is still not OpenAI or DeepSeek. Its refusals
// were said as "OpenAI answered HTTP 401", sending the user to check a key OpenAI never saw.

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

describe('openai: a server is named by its URL, not by the option provider', () => {
  it('a local gateway tagged as a known provider is "The server at <host>"', async () => {
    for (const provider of ['openai', 'deepseek', 'openrouter', 'xai']) {
      server.reset()
      server.reply(status(401, '{"error":{"message":"Unauthorized"}}'))
      const adapter = openai({ baseURL: server.url, model: 'm', provider })
      const { error } = await run(adapter)
      expect(adapter.provider).toBe(provider)
      expect(error?.code).toBe('AUTH')
      expect(error?.message).toMatch(new RegExp(`^The server at ${new URL(server.url).host.replace(/\./g, '\\.')} answered HTTP 401: Unauthorized`))
    }
  })
})
