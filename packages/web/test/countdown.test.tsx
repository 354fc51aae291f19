// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createClient } from '@bosun/host/client'
import { ReconnectBanner } from '../app/components/ReconnectBanner.js'
import { SessionList } from '../app/components/SessionList.js'
import { StoreProvider } from '../app/components/store-context.js'
import { nextAttemptIn } from '../app/state/connection.js'
import { createAppStore, type AppStore } from '../app/state/store.js'

/**
 * The reconnect banner counts down to the time the client announced for its next attempt (its
 * `onRetry`), and that attempt is sent when the count runs out: the clock and the client's wait
 * are driven (fake Date, setTimeout and setInterval), so each second is a step of the test, not a
 * wait, and the jitter is fixed by the test's Math.random.
 */
let app: AppStore | undefined
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
  vi.setSystemTime(1_000_000)
})
afterEach(() => {
  app?.getState().dispose()
  cleanup()
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/**
 * The page (banner and list) over a client whose stream requests are answered by `answer(n)` (n
 * from 0); `sent` holds the time of each request. A request `answer` leaves unanswered waits for
 * the page to drop it.
 */
function pageOver(answer: (n: number) => Promise<Response> | undefined): { sent: number[] } {
  const sent: number[] = []
  const fetch = (_input: unknown, init?: RequestInit): Promise<Response> => {
    sent.push(Date.now())
    return answer(sent.length - 1) ?? new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))))
  }
  app = createAppStore({ client: createClient({ baseUrl: 'http://127.0.0.1', fetch: fetch as typeof globalThis.fetch }) })
  render(
    <StoreProvider store={app}>
      <SessionList />
      <ReconnectBanner />
    </StoreProvider>,
  )
  return { sent }
}

const refused = (status: number, code: string) => Promise.resolve(new Response(JSON.stringify({ error: { code, message: 'not now' } }), { status, headers: { 'retry-after': '5', 'content-type': 'application/json' } }))
const banner = (): string | null => screen.queryAllByRole('status').find((element) => !element.textContent!.startsWith('List not live'))?.textContent ?? null
const listNotice = (): string | null => screen.queryAllByRole('status').find((element) => element.textContent!.startsWith('List not live'))?.textContent ?? null
const seconds = (): string => /in (\d) s/.exec(banner()!)![1]!
/** Moves the clock (and the client's wait) on by `ms`, with what it sets off. */
const tick = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms))
/** Lets the page take in what the fake fetch answered (promises only: the clock does not move). */
const settle = () => act(() => vi.advanceTimersByTimeAsync(0))

describe('the reconnect banner\'s countdown', () => {
  it('a 503 asking for 5 s: counts down the client\'s announced wait, "trying again now" as the attempt is sent; the next refusal counts again', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0) // no jitter: the wait is the 5 s asked for
    const { sent } = pageOver((n) => (n < 2 ? refused(503, 'too-many-streams') : undefined))
    app!.getState().select('s')
    await settle()
    expect(banner()).toBe('The host is serving as many streams as it allows — reconnecting (attempt 1) after the 5 s it asked for: next attempt in 5 s. Nothing is lost: the stream resumes after the last event shown.')
    expect(app!.getState().connection.nextAttemptAt).toBe(1_000_000 + 5000)
    const seen = [seconds()]
    for (let second = 1; second <= 4; second++) {
      await tick(1000)
      seen.push(seconds())
    }
    expect(seen).toEqual(['5', '4', '3', '2', '1'])
    await tick(999)
    expect(sent).toHaveLength(1) // a millisecond before the count runs out: not yet
    expect(seconds()).toBe('1')
    await tick(1)
    expect(sent).toEqual([1_000_000, 1_005_000])
    expect(banner()).toMatch(/\(attempt 2\) after the 5 s it asked for: next attempt in 5 s\./)
    await tick(5000)
    expect(sent).toHaveLength(3)
    expect(banner()).toMatch(/\(attempt 2\) after the 5 s it asked for: trying again now\./)
  })

  it('counts to the jittered time the client announced, not to the least it could wait', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999) // the jitter: up to half the 250 ms delay, 125 ms
    const { sent } = pageOver((n) => (n === 0 ? refused(503, 'too-many-streams') : undefined))
    app!.getState().select('s')
    await settle()
    expect(app!.getState().connection.nextAttemptAt).toBe(1_000_000 + 5125)
    expect(seconds()).toBe('6')
    await tick(5000)
    expect(seconds()).toBe('1') // the 5 s asked for are over; the client's wait is not
    expect(sent).toHaveLength(1)
    await tick(125)
    expect(sent).toHaveLength(2)
    await tick(125) // the count is redrawn each 250 ms
    expect(banner()).toMatch(/: trying again now\./)
  })

  it('a lost connection counts down the client\'s backoff, the attempt its own count', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0)
    const { sent } = pageOver(() => Promise.reject(new TypeError('Failed to fetch')))
    app!.getState().select('s')
    await settle()
    expect(banner()).toMatch(/^Connection lost — reconnecting \(attempt 1\): next attempt in 1 s\./)
    expect(app!.getState().connection.nextAttemptAt).toBe(1_000_000 + 125) // half the 250 ms delay
    await tick(125)
    expect(sent).toHaveLength(2)
    expect(banner()).toMatch(/^Connection lost — reconnecting \(attempt 2\): next attempt in 1 s\./)
    expect(app!.getState().connection.nextAttemptAt).toBe(1_000_000 + 125 + 250) // the delay doubled
    expect(nextAttemptIn(10_500, 9_000)).toBe('next attempt in 2 s')
    expect(nextAttemptIn(10_000, 10_000)).toBe('trying again now')
  })
})

describe('429 too-many-client-streams (the host\'s limits.streamsPerClient)', () => {
  it('the banner and the list say what happened and what to do', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0)
    pageOver(() => refused(429, 'too-many-client-streams'))
    app!.getState().followSessions()
    app!.getState().select('s')
    await settle()
    expect(banner()).toBe(
      'The host is serving as many streams as it allows one address (this browser\'s other tabs count, and anything else connecting from this address) — reconnecting (attempt 1) after the 5 s it asked for: next attempt in 5 s. ' +
        'Close other tabs open on this host, or ask its operator to raise limits.streamsPerClient. Nothing is lost: the stream resumes after the last event shown.',
    )
    expect(listNotice()).toBe(
      'List not live — reconnecting (attempt 1) after the 5 s it asked for: the host is serving as many streams as it allows one address (this browser\'s other tabs count, and anything else connecting from this address). ' +
        'Close other tabs open on this host, or ask its operator to raise limits.streamsPerClient.',
    )
    expect(banner()).not.toMatch(/host answered 429/)
  })
})
