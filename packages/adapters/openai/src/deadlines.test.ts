// Issue 13.6: keep-alives do not hold a turn open; idleTimeoutMs counts content, timeoutMs all.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { allClosed, forever, warmUpFetch } from './testing/hostile.js'
import { assemble, run } from './testing/helpers.js'
import { chunk, startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const model = (extra: Partial<Parameters<typeof openai>[0]> = {}) => openai({ baseURL: server.url, model: 'm', ...extra })

describe('deadlines', () => {
  const keepAlives = {
    'comments': ': keep-alive\n\n',
    'role-only deltas': `data: ${chunk({ role: 'assistant' })}\n\n`,
    'empty deltas': `data: ${chunk({ content: '' })}\n\ndata: ${chunk({ tool_calls: [] })}\n\n`,
    'usage-only chunks': `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 1 } })}\n\n`,
  }
  for (const [name, keepAlive] of Object.entries(keepAlives)) {
    it(`a server that sends only ${name}: TIMEOUT after idleTimeoutMs of no content, connection closed`, async () => {
      server.reply(forever(keepAlive, 20))
      const { chunks, error } = await run(model({ idleTimeoutMs: 200 }))
      expect(chunks).toEqual([])
      expect([error?.code, error?.retryable]).toEqual(['TIMEOUT', true])
      expect(error?.message).toContain('sent no content (text, reasoning or a tool call) for 200 ms; keep-alives do not count')
      await allClosed(server.requests)
    })
  }

  it('content resets the clock; keep-alives after it do not', async () => {
    server.reply(forever(': ping\n\n', 20, `data: ${chunk({ content: 'first' })}\n\n`))
    const { chunks, error } = await run(model({ idleTimeoutMs: 200 }))
    expect(assemble(chunks).text).toBe('first')
    expect(error?.code).toBe('TIMEOUT')
  })

  it('timeoutMs ends a response that streams content but never finishes', async () => {
    server.reply(forever(`data: ${chunk({ content: 'more ' })}\n\n`))
    const { chunks, error } = await run(model({ timeoutMs: 200 }))
    expect(assemble(chunks).text).toMatch(/^(more )+$/)
    expect([error?.code, error?.retryable]).toEqual(['TIMEOUT', true])
    expect(error?.message).toBe('The server at ' + new URL(server.url).host + ' did not complete the response within timeoutMs (200 ms).')
    await allClosed(server.requests)
  })
})
