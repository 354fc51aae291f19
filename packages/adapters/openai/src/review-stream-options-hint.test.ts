// Review Y7: a server that refuses the stream_options field answers 400 to every request; the error
// quoted its words but did not say that the adapter's option streamOptions: false (4584bc8) leaves
// the field out. Against a real local server that refuses it, as such servers word it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { run } from './testing/helpers.js'
import { startServer, status, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const HINT = /set the adapter's option streamOptions: false to leave it out/
const OPENAI_WORDS = JSON.stringify({ error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error' } })
// A server validating its body with pydantic (extra fields forbidden), as a 400 or a 422.
const PYDANTIC_WORDS = JSON.stringify({ detail: [{ type: 'extra_forbidden', loc: ['body', 'stream_options'], msg: 'Extra inputs are not permitted' }] })

describe('a refusal of stream_options', () => {
  it('says to set streamOptions: false (an OpenAI-style 400, a pydantic 422), still INVALID_REQUEST and not retryable', async () => {
    for (const [code, body] of [[400, OPENAI_WORDS], [422, PYDANTIC_WORDS]] as const) {
      server.reply(status(code, body))
      const { error } = await run(openai({ baseURL: server.url, model: 'm' }))
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: code, retryable: false })
      expect(error!.message).toMatch(/stream_options/)
      expect(error!.message).toMatch(HINT)
    }
  })

  it('a 400 that does not name the field, or one received with the field already off, has no such hint', async () => {
    server.reply(status(400, JSON.stringify({ error: { message: 'temperature must be at most 2' } })))
    server.reply(status(400, OPENAI_WORDS))
    const other = (await run(openai({ baseURL: server.url, model: 'm' }))).error
    expect(other).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    expect(other!.message).not.toMatch(HINT)
    const off = (await run(openai({ baseURL: server.url, model: 'm', streamOptions: false }))).error
    expect(off).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    expect(off!.message).not.toMatch(HINT)
  })
})
