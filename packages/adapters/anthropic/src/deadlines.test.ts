// Issue 13.6: pings do not hold a turn open; idleTimeoutMs counts content, timeoutMs all.
// The deadlines' clock is faked and moved by the test, the server sends each piece when told
// (../../openai/src/testing/by-hand.ts): on the real clock a 200 ms deadline on a loaded machine
// could expire before the first text arrived, and the test then saw no text.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { advanceWhilePending, byHand, DEADLINE_CLOCK, keepAlivesFor180ms, pending, pull } from '../../openai/src/testing/by-hand.js'
import { allClosed } from '../../openai/src/testing/hostile.js'
import { ask, collect, model, serverAt, warmUpFetch } from './testing/helpers.js'
import { fakeServer, frames, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(async () => {
  await warmUpFetch()
  // One exchange on the real clock first: fetch's own timers are created then, not on the fake one.
  const warm = await fakeServer()
  await collect(model(warm.baseURL).stream(ask(), { signal: new AbortController().signal }))
  await warm.close()
})
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  vi.useRealTimers()
  await server.close()
})

const messageStart = frames([{ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } }])[0]!
const textBlock = frames([{ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }])[0]!
const ping = frames([{ type: 'ping' }])[0]!
const delta = (text: string) => frames([{ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }])[0]!
const text = (value: string) => ({ chunk: { type: 'text-delta', text: value } })
const closedUnfinished = () => server.requests.map(() => ({ ended: false }))

/** The fake clock on, a reply sent by hand queued, and a first pull pending (the clock runs). */
async function start(options: Parameters<typeof model>[1], first: string) {
  vi.useFakeTimers(DEADLINE_CLOCK)
  const hand = byHand(first)
  server.reply(hand.reply)
  const stream = pull(model(server.baseURL, options), ask())
  const next = stream.next()
  await hand.opened
  expect(server.requests).toHaveLength(1)
  return { hand, stream, next }
}

describe('deadlines', () => {
  it('a server that sends message_start, then only pings: TIMEOUT after idleTimeoutMs of no content, socket closed', async () => {
    const { hand, next } = await start({ idleTimeoutMs: 200 }, messageStart)
    await keepAlivesFor180ms(hand, ping, next)
    await hand.send(ping)
    await vi.advanceTimersByTimeAsync(20)
    const ended = await next
    expect(ended).toHaveProperty('error') // and no chunk before it
    expect((ended as { error: unknown }).error).toMatchObject({ code: 'TIMEOUT', retryable: true })
    expect((ended as { error: Error }).error.message).toBe(
      `${serverAt(server.baseURL)} sent no content (text, reasoning or a tool call) for 200 ms; keep-alives do not count. The connection looks stalled (raise idleTimeoutMs for a model that thinks longer without streaming).`,
    )
    expect(await allClosed(server.requests)).toEqual(closedUnfinished())
  })

  it('empty text deltas and SSE comments are no content either', async () => {
    const { hand, next } = await start({ idleTimeoutMs: 200 }, messageStart + textBlock)
    await keepAlivesFor180ms(hand, `${delta('')}: comment\n\n`, next)
    await vi.advanceTimersByTimeAsync(20)
    expect(await next).toMatchObject({ error: { code: 'TIMEOUT' } })
  })

  it('timeoutMs ends a response that streams text but never finishes', async () => {
    const { hand, stream, next } = await start({ timeoutMs: 200 }, messageStart + textBlock)
    await hand.send(delta('more '))
    expect(await next).toEqual(text('more '))
    const second = stream.next()
    await advanceWhilePending(second, 150, 'ended before timeoutMs')
    await hand.send(delta('more '))
    expect(await second).toEqual(text('more '))
    const last = stream.next()
    expect(await pending(last), 'ended before timeoutMs').toBe(true)
    await vi.advanceTimersByTimeAsync(50)
    expect(await last).toMatchObject({ error: { code: 'TIMEOUT', retryable: true, message: `${serverAt(server.baseURL)} did not complete the response within timeoutMs (200 ms).` } })
    expect(await allClosed(server.requests)).toEqual(closedUnfinished())
  })
})
