// Issue 13.6: pings do not hold a turn open; idleTimeoutMs counts content, timeoutMs all.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { allClosed, forever } from '../../openai/src/testing/hostile.js'
import { ask, collect, model, textOf, warmUpFetch } from './testing/helpers.js'
import { fakeServer, frames, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(() => server.close())

const run = (options: Parameters<typeof model>[1]) => collect(model(server.baseURL, options).stream(ask(), { signal: new AbortController().signal }))

const messageStart = frames([{ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } }])[0]!
const textBlock = frames([{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }])[0]!
const ping = frames([{ type: 'ping' }])[0]!
const delta = (text: string) => frames([{ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }])[0]!

describe('deadlines', () => {
  it('a server that sends message_start, then only pings: TIMEOUT after idleTimeoutMs of no content, socket closed', async () => {
    server.reply(forever(ping, 20, messageStart))
    const { chunks, error } = await run({ idleTimeoutMs: 200 })
    expect(chunks).toEqual([])
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true })
    expect(error!.message).toBe(
      'Anthropic sent no content (text, reasoning or a tool call) for 200 ms; keep-alives do not count. The connection looks stalled (raise idleTimeoutMs for a model that thinks longer without streaming).',
    )
    expect(await allClosed(server.requests)).toEqual(server.requests.map(() => ({ ended: false })))
  })

  it('empty text deltas and SSE comments are no content either', async () => {
    server.reply(forever(`${delta('')}: comment\n\n`, 20, messageStart + textBlock))
    const { error } = await run({ idleTimeoutMs: 200 })
    expect(error).toMatchObject({ code: 'TIMEOUT' })
  })

  it('timeoutMs ends a response that streams text but never finishes', async () => {
    server.reply(forever(delta('more '), 20, messageStart + textBlock))
    const { chunks, error } = await run({ timeoutMs: 200 })
    expect(textOf(chunks)).toMatch(/^(more )+$/)
    expect(error).toMatchObject({ code: 'TIMEOUT', retryable: true, message: 'Anthropic did not complete the response within timeoutMs (200 ms).' })
    expect(await allClosed(server.requests)).toEqual(server.requests.map(() => ({ ended: false })))
  })
})
