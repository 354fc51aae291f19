// A 200 whose body is not an event stream — an HTML page (a captive portal, a baseURL pointing at
// a web app), plain text, or a page labelled text/event-stream by a misconfigured proxy — is a
// MALFORMED_RESPONSE that quotes its start, as the anthropic adapter says it: not a retryable
// TRANSPORT "ended before the response was complete", which retrying cannot cure.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { run } from './testing/helpers.js'
import { raw, startServer, status, type TestServer } from './testing/server.js'

const KEY = 'sk-test-not-a-stream-0123456789abcdef'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
  process.env.NOT_A_STREAM_KEY = KEY
})
afterAll(async () => {
  delete process.env.NOT_A_STREAM_KEY
  await server.close()
})
beforeEach(() => server.reset())

const model = () => openai({ baseURL: server.url, model: 'm', apiKeyEnv: 'NOT_A_STREAM_KEY' })

describe('a 200 that is not an event stream', () => {
  const page = '<!doctype html><html><body><h1>Welcome to the portal</h1></body></html>'
  const bodies = [
    { name: 'an HTML page', reply: () => status(200, page, { 'content-type': 'text/html; charset=utf-8' }), start: '<!doctype html>' },
    { name: 'plain text', reply: () => status(200, 'Internal error, try later', { 'content-type': 'text/plain' }), start: 'Internal error' },
    { name: 'an HTML page labelled text/event-stream', reply: () => raw([Buffer.from(page)]), start: '<!doctype html>' },
  ]
  for (const { name, reply, start } of bodies) {
    it(`${name}: MALFORMED_RESPONSE (not retryable), quoting its start and pointing at baseURL`, async () => {
      server.reply(reply())
      const { chunks, error } = await run(model())
      expect(chunks).toEqual([])
      expect([error?.code, error?.retryable]).toEqual(['MALFORMED_RESPONSE', false])
      expect(error?.message).toContain('is not an event stream')
      expect(error?.message).toContain(start)
      expect(error?.message).toContain('baseURL')
    })
  }

  it('the key a page echoes is masked in the quote', async () => {
    server.reply(status(200, `<html>Your key ${KEY} was accepted</html>`, { 'content-type': 'text/html' }))
    const { error } = await run(model())
    expect(error?.code).toBe('MALFORMED_RESPONSE')
    expect(error?.message).toContain('[redacted]')
    expect(error?.message).not.toContain(KEY.slice(0, 12))
  })

  it('a stream cut inside its first event stays TRANSPORT (retryable): it was an event stream', async () => {
    server.reply(raw([Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"hel')]))
    const { error } = await run(model())
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
  })

  it('an event stream of keep-alive comments that ends early stays TRANSPORT (retryable)', async () => {
    server.reply(raw([Buffer.from(': keep-alive\n\n')]))
    const { error } = await run(model())
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
  })
})
