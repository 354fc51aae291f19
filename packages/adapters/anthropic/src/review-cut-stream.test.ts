// Review Y2: what a stream that ends early means is the same in the three HTTP adapters. A stream
// that ends before Anthropic said why it stopped (`message_delta`'s `stop_reason`) is TRANSPORT
// (retryable), after the chunks that did arrive; once the stop reason came, the end of the body
// completes the message even without `message_stop` — as the openai adapter takes a finish_reason
// without [DONE], and @ai-sdk/anthropic a stop reason without message_stop. Against a real local
// server replaying a recorded Anthropic stream.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ask, collect, model, textOf, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, fixture, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const run = () => collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))
const recorded = fixture('anthropic-text')
const deltaAt = recorded.findIndex((event) => event.type === 'message_delta')

describe('a stream that ends early', () => {
  it('cut mid-text, before the stop reason: TRANSPORT (retryable), after the text that arrived', async () => {
    server.reply(events(recorded.slice(0, deltaAt - 2)))
    const { chunks, error } = await run()
    expect(textOf(chunks)).not.toBe('')
    expect(chunks.some((c) => c.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
  })

  it('cut after the stop reason, before message_stop: complete, the same chunks as the whole stream', async () => {
    server.reply(events(recorded), events(recorded.slice(0, deltaAt + 1)))
    const whole = await run()
    expect(whole.error).toBeUndefined()
    const cut = await run()
    expect(cut).toEqual(whole)
    expect(cut.chunks.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })
})
