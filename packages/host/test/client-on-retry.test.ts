import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient, type RetryNotice } from '../src/client.js'
import { listen } from '../src/index.js'
import { makeHost, perTest, waitFor } from './helpers.js'
import { plainServer, type PlainAnswer } from './plain-server.js'

/**
 * A stream's `onRetry` announces each next attempt — when it comes and why — before the client
 * waits for it, so a page can count down to it without a copy of the client's backoff. The wait
 * announced is the wait done: with the clock faked, the next request leaves exactly at `at`.
 */
const state = perTest()
afterEach(() => {
  vi.useRealTimers()
})

const json = { 'content-type': 'application/json' }
const refusal = (status: number, code: string, retryAfter: string): PlainAnswer => ({ status, headers: { ...json, 'retry-after': retryAfter }, body: JSON.stringify({ error: { code, message: 'not now' } }) })
const sse = (body: string): PlainAnswer => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body })
const hostHello = sse('event: hello\ndata: {"sessions":[]}\n\n')
const sessionHello = sse('event: hello\ndata: {"lastSeq":-1,"status":"idle","inbox":{"next-turn":[],"next-step":[]}}\n\n')

/** Resolves at the next call of the returned callback, with its argument. */
function next<T>(): { promise: Promise<T>; call(value: T): void } {
  let call!: (value: T) => void
  const promise = new Promise<T>((resolve) => { call = resolve })
  return { promise, call }
}

describe('onRetry, with the clock faked', () => {
  it.each([
    ['hostStream', 503, 'too-many-streams', hostHello],
    ['hostStream', 429, 'too-many-client-streams', hostHello],
    ['stream', 503, 'too-many-streams', sessionHello],
    ['stream', 429, 'too-many-client-streams', sessionHello],
  ] as const)('%s refused %i with retry-after 2: announces the wait, and the next request leaves exactly at `at`', async (which, status, code, served) => {
    const server = await plainServer(state.closing, (n) => (n === 0 ? refusal(status, code, '2') : served))
    // Only the client's wait and the clock are faked: the server and the sockets run as they do.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    vi.setSystemTime(1_000_000)
    const sent: number[] = []
    const requested = [next<void>(), next<void>()]
    const client = createClient({
      baseUrl: server.url,
      fetch: (input, init) => {
        sent.push(Date.now())
        requested[sent.length - 1]?.call()
        return fetch(input, init)
      },
    })
    const announced = next<RetryNotice>()
    const controller = new AbortController()
    const options = { signal: controller.signal, retry: { initialMs: 400, maxMs: 400 }, onRetry: announced.call }
    const frames = (which === 'stream' ? client.stream('s', options) : client.hostStream(options))[Symbol.asyncIterator]()
    const first = frames.next()

    const notice = await announced.promise
    expect(notice).toMatchObject({ attempt: 1, cause: { kind: 'refused', status, code, retryAfterMs: 2000 } })
    // The retry-after in full, plus the jitter: up to half the backoff delay (200 ms of 400).
    expect(notice.delayMs).toBeGreaterThanOrEqual(2000)
    expect(notice.delayMs).toBeLessThanOrEqual(2200)
    expect(notice.at).toBe(1_000_000 + notice.delayMs)

    await vi.advanceTimersByTimeAsync(notice.delayMs - 1)
    expect(sent).toHaveLength(1) // a millisecond early: not yet
    await vi.advanceTimersByTimeAsync(1)
    await requested[1]!.promise
    expect(sent[1]).toBe(notice.at)
    expect((await first).value).toMatchObject({ event: 'hello' })
    controller.abort()
    await frames.return?.()
    expect(server.requests()).toBe(2)
  })
})

describe('onRetry', () => {
  it('numbers the retries since the last frame and says why: refused, dropped, unreachable', async () => {
    // 503, then 429 (no retry-after), then a stream that ends after its hello (dropped), then unreachable.
    const server = await plainServer(state.closing, (n) => [refusal(503, 'too-many-streams', '0'), { status: 429, headers: json, body: '' }, hostHello][n] ?? hostHello)
    const notices: RetryNotice[] = []
    const controller = new AbortController()
    let requests = 0
    const client = createClient({
      baseUrl: server.url,
      fetch: (input, init) => (++requests <= 3 ? fetch(input, init) : Promise.reject(new TypeError('fetch failed'))),
    })
    const onRetry = (notice: RetryNotice): void => {
      notices.push(notice)
      if (notices.length === 4) controller.abort()
    }
    const frames: unknown[] = []
    for await (const frame of client.hostStream({ signal: controller.signal, retry: { initialMs: 2, maxMs: 8 }, onRetry })) frames.push(frame)

    expect(frames).toHaveLength(1)
    expect(notices.map(({ attempt, cause }) => ({ attempt, cause }))).toEqual([
      { attempt: 1, cause: { kind: 'refused', status: 503, code: 'too-many-streams', retryAfterMs: 0 } },
      { attempt: 2, cause: { kind: 'refused', status: 429 } },
      // The hello came: the count starts again.
      { attempt: 1, cause: { kind: 'dropped' } },
      { attempt: 2, cause: { kind: 'unreachable', error: new TypeError('fetch failed') } },
    ])
    // Each between half the backoff's delay and all of it, the delay doubling (2, 4 ms), back to 2 after the hello.
    notices.forEach((notice, index) => {
      const delay = [2, 4, 2, 4][index]!
      expect(notice.delayMs).toBeGreaterThanOrEqual(delay / 2)
      expect(notice.delayMs).toBeLessThanOrEqual(delay)
    })
  })

  it('is not called for an attempt refused after the stream was aborted', async () => {
    const controller = new AbortController()
    const notices: RetryNotice[] = []
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      // The page moved on while the refusal was on its way.
      fetch: async () => {
        controller.abort()
        return new Response(JSON.stringify({ error: { code: 'too-many-streams' } }), { status: 503, headers: { ...json, 'retry-after': '5' } })
      },
    })
    for await (const _ of client.stream('s', { signal: controller.signal, onRetry: (notice) => notices.push(notice) })) expect.fail('no frame')
    expect(notices).toEqual([])
  })

  it('an error onRetry throws ends the stream with it, before the wait', async () => {
    let requests = 0
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', fetch: () => (++requests, Promise.reject(new TypeError('fetch failed'))) })
    const onRetry = (): void => {
      throw new Error('the caller gave up')
    }
    const error = await client.hostStream({ retry: { initialMs: 60_000, maxMs: 60_000 }, onRetry })[Symbol.asyncIterator]().next().catch((e: unknown) => e)
    expect(error).toEqual(new Error('the caller gave up'))
    expect(requests).toBe(1)
  })

  it('a Bosun host refusing a client that holds its streamsPerClient: 429 too-many-client-streams, the 5 s asked for', async () => {
    const { host } = makeHost(state.dir, () => [], { limits: { streamsPerClient: 1 } })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    state.closing.push(server)
    const holder = new AbortController()
    state.closing.push({ close: async () => holder.abort() })
    expect((await fetch(`${server.url}/v1/stream`, { signal: holder.signal })).status).toBe(200)

    const controller = new AbortController()
    const notices: RetryNotice[] = []
    const reading = (async () => {
      for await (const _ of createClient({ baseUrl: server.url }).hostStream({ signal: controller.signal, retry: { initialMs: 400, maxMs: 400 }, onRetry: (notice) => notices.push(notice) })) expect.fail('refused')
    })()
    await waitFor(() => notices.length === 1, 20_000, 'the announcement')
    controller.abort()
    await reading
    expect(notices[0]).toMatchObject({ attempt: 1, cause: { kind: 'refused', status: 429, code: 'too-many-client-streams', retryAfterMs: 5000 } })
    expect(notices[0]!.delayMs).toBeGreaterThanOrEqual(5000)
    expect(notices[0]!.delayMs).toBeLessThanOrEqual(5200)
  })
})
