// Issue 13.9: a non-streamed body is read up to a cap, never inflated whole into memory.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gzipBomb, hugeBody, type Progress } from '../../openai/src/testing/hostile.js'
import { ask, collect, model } from './testing/helpers.js'
import { fakeServer, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(() => server.close())

const run = () => collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))

describe('body caps', () => {
  it('a gzip bomb as an error body (16 KiB that inflate to 64 MiB): RESPONSE_TOO_LARGE, not retryable', async () => {
    server.reply(gzipBomb(529, 'application/json', 4))
    const { error } = await run()
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 529, retryable: false })
    expect(error!.message).toContain('is larger than 1 MiB')
  })

  it('a gzip bomb as a 200 that is not an event stream: RESPONSE_TOO_LARGE', async () => {
    server.reply(gzipBomb(200, 'application/json', 4))
    expect((await run()).error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', retryable: false })
  })

  it('reading stops at the cap: the server never gets to send the whole body', async () => {
    const progress: Progress = { written: 0, finished: false }
    const total = 64 * 1024 * 1024 // 64 times the cap, far more than the sockets' buffers hold
    server.reply(hugeBody(500, 'text/html', total, progress))
    expect((await run()).error).toMatchObject({ code: 'RESPONSE_TOO_LARGE' })
    expect(await server.requests[0]!.closed).toEqual({ ended: false })
    expect(progress.finished).toBe(false)
    expect(progress.written).toBeLessThan(total)
  })
})
