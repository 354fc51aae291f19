// Issue 13.6: keep-alives do not hold a turn open; idleTimeoutMs counts content, timeoutMs all.
// The deadlines' clock is faked and moved by the test, the server sends each piece when told
// (testing/by-hand.ts): on a loaded machine a 200 ms deadline on the real clock could expire
// before the request reached the server, and the late request then took the next test's reply.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { openai } from './adapter.js'
import { advanceWhilePending, byHand, DEADLINE_CLOCK, keepAlivesFor180ms, pending, pull, type ByHand } from './testing/by-hand.js'
import { allClosed, warmUpFetch } from './testing/hostile.js'
import { request, run } from './testing/helpers.js'
import { chunk, startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
  // One exchange on the real clock first: fetch's own timers are created then, not on the fake one.
  expect((await run(model())).error).toBeUndefined()
})
afterAll(() => server.close())
beforeEach(() => server.reset())
afterEach(() => vi.useRealTimers())

const model = (extra: Partial<Parameters<typeof openai>[0]> = {}) => openai({ baseURL: server.url, model: 'm', ...extra })
const data = (delta: Record<string, unknown>) => `data: ${chunk(delta)}\n\n`
const text = (value: string) => ({ chunk: { type: 'text-delta', text: value } })

/** The fake clock on, a reply sent by hand queued, and a first pull pending (the clock runs). */
async function start(options: Partial<Parameters<typeof openai>[0]>, first = '') {
  vi.useFakeTimers(DEADLINE_CLOCK)
  const hand: ByHand = byHand(first)
  server.reply(hand.reply)
  const stream = pull(model(options), request())
  const next = stream.next()
  await hand.opened
  expect(server.requests).toHaveLength(1)
  return { hand, stream, next }
}

describe('deadlines', () => {
  const keepAlives = {
    'comments': ': keep-alive\n\n',
    'role-only deltas': data({ role: 'assistant' }),
    'empty deltas': `${data({ content: '' })}${data({ tool_calls: [] })}`,
    'usage-only chunks': `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 1 } })}\n\n`,
  }
  for (const [name, keepAlive] of Object.entries(keepAlives)) {
    it(`a server that sends only ${name}: TIMEOUT after idleTimeoutMs of no content, connection closed`, async () => {
      const { hand, next } = await start({ idleTimeoutMs: 200 })
      await keepAlivesFor180ms(hand, keepAlive, next)
      await hand.send(keepAlive)
      await vi.advanceTimersByTimeAsync(20)
      const ended = await next
      expect(ended).toHaveProperty('error')
      const { error } = ended as { error: { code: string; retryable: boolean; message: string } }
      expect([error.code, error.retryable]).toEqual(['TIMEOUT', true])
      expect(error.message).toContain('sent no content (text, reasoning or a tool call) for 200 ms; keep-alives do not count')
      await allClosed(server.requests)
    })
  }

  it('content resets the clock; keep-alives after it do not', async () => {
    const { hand, stream, next } = await start({ idleTimeoutMs: 200 })
    await vi.advanceTimersByTimeAsync(150)
    await hand.send(data({ content: 'first' }))
    expect(await next).toEqual(text('first'))
    // 300 ms since the request, 150 since the content: on a clock that content did not reset,
    // the deadline would have ended the stream here.
    const second = stream.next()
    await advanceWhilePending(second, 150, 'the content did not reset the clock')
    await hand.send(data({ content: 'second' }))
    expect(await second).toEqual(text('second'))
    const third = stream.next()
    await keepAlivesFor180ms(hand, ': ping\n\n', third)
    await hand.send(': ping\n\n')
    await vi.advanceTimersByTimeAsync(20)
    expect(await third).toMatchObject({ error: { code: 'TIMEOUT' } })
    await allClosed(server.requests)
  })

  it('timeoutMs ends a response that streams content but never finishes', async () => {
    const { hand, stream, next } = await start({ timeoutMs: 200 })
    await hand.send(data({ content: 'more ' }))
    expect(await next).toEqual(text('more '))
    const second = stream.next()
    await advanceWhilePending(second, 150, 'ended before timeoutMs')
    await hand.send(data({ content: 'more ' }))
    expect(await second).toEqual(text('more '))
    const third = stream.next()
    await hand.send(data({ content: 'more ' }))
    expect(await third).toEqual(text('more '))
    const last = stream.next()
    expect(await pending(last), 'ended before timeoutMs').toBe(true)
    await vi.advanceTimersByTimeAsync(50)
    const ended = await last
    expect(ended).toHaveProperty('error')
    const { error } = ended as { error: { code: string; retryable: boolean; message: string } }
    expect([error.code, error.retryable]).toEqual(['TIMEOUT', true])
    expect(error.message).toBe('The server at ' + new URL(server.url).host + ' did not complete the response within timeoutMs (200 ms).')
    await allClosed(server.requests)
  })
})
