import { describe, expect, it } from 'vitest'
import { Backoff, MAX_RETRY_AFTER_MS, retriesStatus, retryAfterMs } from '../src/client-sse.js'
import { createClient, HostClientError, type RetryNotice, type StreamFrame } from '../src/client.js'
import { listen } from '../src/index.js'
import { makeHost, perTest, waitFor } from './helpers.js'
import { plainServer } from './plain-server.js'

/**
 * How the typed client waits before trying a stream again: jittered backoff, a refusal's
 * `retry-after` waited in full, 408/429 retried, other 4xx thrown.
 */
const state = perTest()

/** A Backoff whose randomness is `random` and whose waits are recorded instead of slept. */
function recorded(initialMs: number, maxMs: number, random: () => number): { backoff: Backoff; waits: number[] } {
  const waits: number[] = []
  const backoff = new Backoff(initialMs, maxMs, undefined, { random, sleep: async (ms) => void waits.push(ms) })
  return { backoff, waits }
}

describe('Backoff', () => {
  it('waits between half the delay and all of it, doubling up to maxMs; reset starts again', async () => {
    for (const [random, expected] of [[0, [50, 100, 200, 200, 50]], [0.999_999, [100, 200, 400, 400, 100]]] as const) {
      const { backoff, waits } = recorded(100, 400, () => random)
      for (let attempt = 0; attempt < 4; attempt++) await backoff.wait()
      backoff.reset()
      await backoff.wait()
      expect(waits.map(Math.round)).toEqual(expected)
    }
  })

  it('waits at least what retry-after asks, plus up to half the delay, and still doubles the delay', async () => {
    const { backoff, waits } = recorded(200, 2000, () => 0.5)
    await backoff.wait(5000)
    await backoff.wait(5000)
    // Shorter than half the delay (800 ms by now): the jittered delay wins.
    await backoff.wait(10)
    expect(waits).toEqual([5000 + 50, 5000 + 100, 400 + 200])
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('2026-12-03T08:00:00Z')
  it.each([
    ['5', 5000],
    [' 7 ', 7000],
    ['0', 0],
    ['Thu, 03 Dec 2026 08:00:12 GMT', 12_000],
    ['Thu, 03 Dec 2026 07:59:00 GMT', 0],
    ['86400', MAX_RETRY_AFTER_MS],
    ['Fri, 04 Dec 2026 08:00:00 GMT', MAX_RETRY_AFTER_MS],
    ['soon', undefined],
    ['-3', undefined],
    ['1.5', undefined],
    ['Sunday', undefined],
  ])('reads %j as %j ms', (header, ms) => {
    expect(retryAfterMs(header, now)).toBe(ms)
  })

  it('is undefined without the header', () => {
    expect(retryAfterMs(null, now)).toBeUndefined()
  })
})

describe('retriesStatus', () => {
  it('retries 5xx, 408 and 429; not the other 4xx', () => {
    expect([500, 502, 503, 504, 408, 429].map(retriesStatus)).toEqual([true, true, true, true, true, true])
    expect([400, 401, 403, 404, 409, 410].map(retriesStatus)).toEqual([false, false, false, false, false, false])
  })
})

const hello = { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'event: hello\ndata: {"sessions":[]}\n\n' }

describe('a refused stream attempt', () => {
  it.each([408, 429])('retries a %i (a proxy\'s or rate limiter\'s answer), as it does a 5xx', async (status) => {
    const server = await plainServer(state.closing, (n) => (n === 0 ? { status, headers: { 'retry-after': '0', 'content-type': 'application/json' }, body: '{}' } : hello))
    const controller = new AbortController()
    const first = await createClient({ baseUrl: server.url }).hostStream({ signal: controller.signal, retry: { initialMs: 5, maxMs: 20 } })[Symbol.asyncIterator]().next()
    controller.abort()
    expect(first.value).toEqual({ event: 'hello', data: { sessions: [] } })
    expect(server.requests()).toBe(2)
  })

  it('throws a 403 at once, with the host\'s code', async () => {
    const server = await plainServer(state.closing, () => ({ status: 403, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { code: 'forbidden-origin', message: 'Not this origin.' } }) }))
    const error = await createClient({ baseUrl: server.url }).hostStream({ retry: { initialMs: 5, maxMs: 20 } })[Symbol.asyncIterator]().next().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HostClientError)
    expect(error).toMatchObject({ status: 403, code: 'forbidden-origin' })
    expect(server.requests()).toBe(1)
  })

  it('503 too-many-streams: waits the retry-after, then resumes after the last event — nothing twice, nothing missed', async () => {
    const { host, store } = makeHost(state.dir, () => [], { limits: { streams: 1 } })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
    state.closing.push(store, host, server)
    const client = createClient({ baseUrl: server.url })
    await client.createSession('c')
    await client.send('c', { content: 'before', clientMessageId: 'm0' }, { waitDurable: true })
    const { lastSeq: before } = await client.events('c', { limit: 1000 })

    // Another client holds the only slot.
    const holder = new AbortController()
    const held = await fetch(`${server.url}/v1/stream`, { signal: holder.signal })
    expect(held.status).toBe(200)

    // The host asks for 5 s; the client is handed the refusal with 1 s instead, so the test waits
    // a second, not five — still far above the backoff's 5-20 ms, which is all an ignored
    // retry-after would leave. The slot is freed before the client gets the refusal, so the retry
    // a second later finds it free however slowly a busy machine closes the held stream.
    const attempts: { status: number; retryAfter: string | null; at: number }[] = []
    const watched = createClient({
      baseUrl: server.url,
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        if (!String(input).includes('/stream')) return response
        attempts.push({ status: response.status, retryAfter: response.headers.get('retry-after'), at: performance.now() })
        if (response.status !== 503) return response
        holder.abort()
        await held.body?.cancel().catch(() => {})
        await waitFor(() => host.openStreams === 0, 20_000, 'the held stream to close')
        const headers = new Headers(response.headers)
        headers.set('retry-after', '1')
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
      },
    })
    const controller = new AbortController()
    const frames: StreamFrame[] = []
    const notices: RetryNotice[] = []
    const reading = (async () => {
      for await (const frame of watched.stream('c', { after: 1, signal: controller.signal, retry: { initialMs: 5, maxMs: 20 }, onRetry: (notice) => notices.push(notice) })) {
        frames.push(frame)
        if (frame.event === 'session.event' && frame.data.type === 'turn/end' && frame.data.seq > before) controller.abort()
      }
    })()
    await waitFor(() => notices.length === 1, 20_000, 'the refused first attempt')
    expect(attempts[0]).toMatchObject({ status: 503, retryAfter: '5' })
    expect(notices[0]).toMatchObject({ attempt: 1, cause: { kind: 'refused', status: 503, code: 'too-many-streams', retryAfterMs: 1000 } })
    expect(notices[0]!.delayMs).toBeGreaterThanOrEqual(1000)
    await waitFor(() => frames.length > 0, 20_000, 'the first frame after the retry-after')
    await client.send('c', { content: 'after', clientMessageId: 'm1' }, { waitDurable: true })
    await reading

    expect(attempts.map((attempt) => attempt.status)).toEqual([503, 200])
    // The second attempt came no sooner than the second the refusal asked for: a lower bound,
    // which a slow machine only raises (a timer may fire a millisecond early, hence 990).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(990)
    const seqs = frames.flatMap((frame) => (frame.event === 'session.event' ? [frame.data.seq] : []))
    const { events } = await client.events('c', { after: 1, limit: 1000 })
    expect(seqs).toEqual(events.map((event) => event.seq).filter((seq) => seq <= seqs.at(-1)!))
  }, 30_000)
})
