// Review Y2: some OpenAI-compatible servers refuse the `stream_options` field, which the adapter
// always sent. `streamOptions: false` leaves it out (usage is then only what the server sends
// unasked). Against a real local server that answers 400 to a request holding the field.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { run } from './testing/helpers.js'
import { chunk, sse, startServer, status, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** As such a server answers: 400 for a body with `stream_options`, else a stream. */
const strict = () =>
  server.reply((res, req) => {
    const body = server.requests.at(-1)!.body
    if ('stream_options' in body) return status(400, JSON.stringify({ error: { message: 'Unrecognized request argument supplied: stream_options' } }))(res, req)
    return sse([chunk({ content: 'hi' }), chunk({}, 'stop')])(res, req)
  })

describe('streamOptions', () => {
  it('false: the request has no stream_options, and a server that refuses the field answers', async () => {
    strict()
    const { chunks, error } = await run(openai({ baseURL: server.url, model: 'm', streamOptions: false }))
    expect(error).toBeUndefined()
    expect(server.requests[0]!.body).toMatchObject({ stream: true })
    expect(server.requests[0]!.body).not.toHaveProperty('stream_options')
    // No usage was asked for, and this server sends none unasked.
    expect(chunks).toEqual([{ type: 'text-delta', text: 'hi' }, { type: 'finish', reason: 'stop' }])
  })

  it('by default (and true) the usage is asked for: such a server refuses the request', async () => {
    strict()
    strict()
    for (const options of [{}, { streamOptions: true }]) {
      const { error } = await run(openai({ baseURL: server.url, model: 'm', ...options }))
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
    }
    expect(server.requests.map((r) => r.body.stream_options)).toEqual([{ include_usage: true }, { include_usage: true }])
  })

  it('request.params cannot put the field back', async () => {
    strict()
    const { error } = await run(openai({ baseURL: server.url, model: 'm', streamOptions: false }), {
      system: '', messages: [{ role: 'user', id: 'u', content: [{ type: 'text', text: 'x' }] }], tools: [], params: { stream_options: { include_usage: true } },
    })
    expect(error).toBeUndefined()
  })

  it('a config file gives it as a boolean (the schema)', () => {
    expect(() => openai({ baseURL: server.url, model: 'm', streamOptions: 'no' as unknown as boolean })).toThrow(/\$\.streamOptions: must be a boolean/)
  })
})
