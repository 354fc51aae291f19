// Review V2: configured `headers` cannot replace `content-type` or `accept` — the adapter sends JSON
// and reads an event stream, whatever they say (as the openai adapter keeps its own) — and the
// answer's content type is matched as a media type: any case, with parameters.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ask, collect, model, SECRET, textOf, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, fixture, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const HELLO = "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"

describe('the headers the adapter owns', () => {
  it('content-type and accept stay ours whatever `headers` say (in any case); other headers pass', async () => {
    server.reply(events(fixture('anthropic-text')))
    const adapter = model(server.baseURL, { headers: { 'Content-Type': 'text/plain', ACCEPT: 'application/json', 'anthropic-beta': 'x' } })
    const { chunks, error } = await collect(adapter.stream(ask(), { signal: new AbortController().signal }))
    expect(error).toBeUndefined()
    expect(textOf(chunks)).toBe(HELLO)
    expect(server.requests[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-beta': 'x',
      'x-api-key': SECRET,
    })
  })
})

describe("the answer's content type", () => {
  for (const type of ['Text/Event-Stream; charset=utf-8', 'TEXT/EVENT-STREAM', 'text/event-stream;charset=UTF-8']) {
    it(`${type} is an event stream`, async () => {
      server.reply(events(fixture('anthropic-text'), { headers: { 'content-type': type } }))
      const { chunks, error } = await collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))
      expect(error).toBeUndefined()
      expect(textOf(chunks)).toBe(HELLO)
    })
  }
})
