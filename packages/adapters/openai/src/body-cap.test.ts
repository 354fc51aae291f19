// Issue 13.9: a non-streamed body is read up to a cap, never inflated whole into memory.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { gzipBomb, hugeBody, type Progress } from './testing/hostile.js'
import { run } from './testing/helpers.js'
import { startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const model = () => openai({ baseURL: server.url, model: 'm' })

describe('body caps', () => {
  it('a gzip bomb as an error body (16 KiB that inflate to 64 MiB): RESPONSE_TOO_LARGE, not retryable', async () => {
    server.reply(gzipBomb(500, 'application/json', 4))
    const { error } = await run(model())
    expect([error?.code, error?.status, error?.retryable]).toEqual(['RESPONSE_TOO_LARGE', 500, false])
    expect(error?.message).toContain('is larger than 1 MiB')
  })

  it('a gzip bomb as a 200 JSON answer: RESPONSE_TOO_LARGE (the cap for answers is 16 MiB)', async () => {
    server.reply(gzipBomb(200, 'application/json', 4))
    const { error } = await run(model())
    expect([error?.code, error?.retryable]).toEqual(['RESPONSE_TOO_LARGE', false])
    expect(error?.message).toContain('is larger than 16 MiB')
  })

  it('reading stops at the cap: the server never gets to send the whole body', async () => {
    const progress: Progress = { written: 0, finished: false }
    const total = 64 * 1024 * 1024 // 64 times the cap, far more than the sockets' buffers hold
    server.reply(hugeBody(503, 'text/plain', total, progress))
    const { error } = await run(model())
    expect(error?.code).toBe('RESPONSE_TOO_LARGE')
    await server.requests[0]!.closed
    expect(progress.finished).toBe(false)
    expect(progress.written).toBeLessThan(total)
  })
})
