// A 200 labelled text/event-stream whose body holds no SSE event or comment — an HTML page a
// misconfigured proxy labels as a stream, plain text — is a MALFORMED_RESPONSE quoting its start,
// as a 200 of another content type is: not a retryable EMPTY_RESPONSE ("closed the stream without
// sending a message") that no retry cures. The openai adapter says the same (its not-a-stream test).
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ask, collect, model, SECRET, warmUpFetch } from './testing/helpers.js'
import { fakeServer, stream, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const run = () => collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))

describe('a 200 event stream that holds no event', () => {
  it('an HTML page: MALFORMED_RESPONSE (not retryable), quoting its start and pointing at baseURL', async () => {
    server.reply(stream(['<!doctype html><html><body><h1>Welcome to the portal</h1></body></html>']))
    const { chunks, error } = await run()
    expect(chunks).toEqual([])
    expect([error?.code, error?.retryable]).toEqual(['MALFORMED_RESPONSE', false])
    expect(error?.message).toContain('not an event stream')
    expect(error?.message).toContain('<!doctype html>')
    expect(error?.message).toContain('baseURL')
  })

  it('the key the page echoes is masked in the quote', async () => {
    server.reply(stream([`<html>Your key ${SECRET} was accepted</html>`]))
    const { error } = await run()
    expect(error?.code).toBe('MALFORMED_RESPONSE')
    expect(error?.message).toContain('[redacted]')
    expect(error?.message).not.toContain(SECRET.slice(0, 12))
  })

  it('a stream cut inside its first event stays EMPTY_RESPONSE (retryable): it was an event stream', async () => {
    server.reply(stream(['event: message_start\ndata: {"type":"message_start","mess']))
    expect((await run()).error).toMatchObject({ code: 'EMPTY_RESPONSE', retryable: true })
  })

  it('an empty body stays EMPTY_RESPONSE, pings only too (retryable)', async () => {
    server.reply(stream([]), stream(['event: ping\ndata: {"type":"ping"}\n\n']), stream([': keep-alive\n\n']))
    for (let i = 0; i < 3; i++) expect((await run()).error).toMatchObject({ code: 'EMPTY_RESPONSE', retryable: true })
  })
})
