// Issue 13.1: a redirect never carries the key or the custom headers to another origin.
import { serializeError } from '@bosun/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { bystander, REDIRECTS, redirect, type Bystander } from './testing/hostile.js'
import { run } from './testing/helpers.js'
import { startServer, type TestServer } from './testing/server.js'

const KEY_ENV = 'BOSUN_TEST_OPENAI_REDIRECT_KEY'
const KEY = 'sk-test-redirect-0123456789abcdef'

let server: TestServer
let other: Bystander
beforeAll(async () => {
  process.env[KEY_ENV] = KEY
  server = await startServer()
  other = await bystander()
})
afterAll(async () => {
  delete process.env[KEY_ENV]
  await Promise.all([server.close(), other.close()])
})
beforeEach(() => server.reset())

const model = () => openai({ baseURL: server.url, model: 'm', apiKeyEnv: KEY_ENV, headers: { 'X-Proxy-Route': 'tenant-7' } })

describe('a redirect from baseURL', () => {
  for (const status of REDIRECTS) {
    it(`HTTP ${status} to another origin: not followed; PROVIDER_REDIRECT names the origin only`, async () => {
      server.reply(redirect(status, `${other.origin}/v1/chat/completions?token=s3cr3t-path-token`))
      const { chunks, error } = await run(model())
      expect(other.requests).toEqual([])
      expect(chunks).toEqual([])
      expect([error?.code, error?.status, error?.retryable]).toEqual(['PROVIDER_REDIRECT', status, false])
      expect(error?.message).toContain(`redirecting to ${other.origin}.`)
      const shown = JSON.stringify(serializeError(error)) + String(error?.stack)
      expect(shown).not.toContain('s3cr3t-path-token')
      expect(shown).not.toContain('/v1/chat/completions')
      expect(shown).not.toContain(KEY)
      expect(server.requests).toHaveLength(1)
    })
  }

  it('to the same origin too (the fix is the same: a baseURL where the server lives)', async () => {
    server.reply(redirect(307, '/v2/chat/completions'))
    const { error } = await run(model())
    expect(error?.code).toBe('PROVIDER_REDIRECT')
    expect(error?.message).toContain('another path of the same origin')
    expect(server.requests).toHaveLength(1)
  })
})
