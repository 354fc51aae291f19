// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createClient } from '@bosun/host/client'
import { ReconnectBanner } from '../app/components/ReconnectBanner.js'
import { StoreProvider } from '../app/components/store-context.js'
import { leastWaitMs, nextAttemptIn, watchStreams } from '../app/state/connection.js'
import { createAppStore, type AppStore } from '../app/state/store.js'

/**
 * The reconnect banner counts down to the stream's next attempt. The clock is driven (fake Date and
 * setInterval), so each second is a step of the test, not a wait.
 */
let app: AppStore | undefined
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] })
  vi.setSystemTime(1_000_000)
})
afterEach(() => {
  app?.getState().dispose()
  cleanup()
  vi.useRealTimers()
})

/** A banner fed by watchStreams over `answer`, as main.tsx wires the page; `attempt()` is one stream request. */
function bannerOver(answer: () => Promise<Response>): { attempt(): Promise<unknown> } {
  const fetch = watchStreams(() => answer(), (change, stream) => app!.getState().setConnection(change, stream))
  app = createAppStore({ client: createClient({ baseUrl: 'http://127.0.0.1', fetch }) })
  render(
    <StoreProvider store={app}>
      <ReconnectBanner />
    </StoreProvider>,
  )
  return { attempt: () => fetch('http://127.0.0.1/v1/sessions/s/stream').catch(() => undefined) }
}

const banner = (): string | null => screen.queryByRole('status')?.textContent ?? null
const tick = (ms: number): void => act(() => void vi.advanceTimersByTime(ms))

describe('the reconnect banner\'s countdown', () => {
  it('a 503 asking for 5 s: "next attempt in 5 s", one less each second, "trying again now" once it is due; the next refusal counts again', async () => {
    const refused = () => Promise.resolve(new Response(JSON.stringify({ error: { code: 'too-many-streams', message: 'full' } }), { status: 503, headers: { 'retry-after': '5', 'content-type': 'application/json' } }))
    const { attempt } = bannerOver(refused)
    await act(() => attempt())
    expect(banner()).toBe('The host is serving as many streams as it allows — reconnecting (attempt 1) after the 5 s it asked for: next attempt in 5 s. Nothing is lost: the stream resumes after the last event shown.')
    const seen = [/in (\d) s/.exec(banner()!)![1]]
    for (let second = 1; second <= 4; second++) {
      tick(1000)
      seen.push(/in (\d) s/.exec(banner()!)![1])
    }
    expect(seen).toEqual(['5', '4', '3', '2', '1'])
    tick(1000)
    expect(banner()).toMatch(/\(attempt 1\) after the 5 s it asked for: trying again now\. Nothing is lost/)

    await act(() => attempt())
    expect(banner()).toMatch(/\(attempt 2\) after the 5 s it asked for: next attempt in 5 s\./)
  })

  it('a lost connection counts down the client\'s backoff: the wait doubles from 250 ms, up to 2 s', async () => {
    const { attempt } = bannerOver(() => Promise.reject(new TypeError('Failed to fetch')))
    await act(() => attempt())
    expect(banner()).toMatch(/^Connection lost — reconnecting \(attempt 1\): next attempt in 1 s\./)
    tick(250)
    expect(banner()).toMatch(/\(attempt 1\): trying again now\./)
    expect([1, 2, 3, 4, 5, 9].map((retries) => leastWaitMs(retries, undefined))).toEqual([125, 250, 500, 1000, 1000, 1000])
    expect(leastWaitMs(1, 5000)).toBe(5000)
    expect(nextAttemptIn(10_500, 9_000)).toBe('next attempt in 2 s')
    expect(nextAttemptIn(10_000, 10_000)).toBe('trying again now')
  })
})
