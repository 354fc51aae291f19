import { describe, expect, it } from 'vitest'
import { createClient, HostClientError } from '../src/client.js'

/**
 * A stream's `retry` option is checked before the first attempt: a delay that is not a positive
 * number of milliseconds made the reconnect loop come back at once, again and again — a client
 * whose host was down (or full) sent it a request every millisecond, for as long as it ran.
 */
describe('stream() and hostStream() retry options', () => {
  const bad = [
    { initialMs: 0 },
    { initialMs: -5 },
    { initialMs: Number.NaN },
    { maxMs: 0 },
    // Past what a timer can wait (2^31 - 1 ms): Node waits 1 ms instead, so the loop spun once the delay got there.
    { initialMs: 10, maxMs: 2 ** 31 },
  ]
  it.each(bad)('refuses %j before any request', async (retry) => {
    const controller = new AbortController()
    let requests = 0
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      // Every attempt fails as an unreachable host does; after 50 the test gives up (the old loop never did).
      fetch: async () => {
        if (++requests >= 50) controller.abort()
        throw new TypeError('fetch failed')
      },
    })
    for (const open of [() => client.stream('s', { retry, signal: controller.signal }), () => client.hostStream({ retry, signal: controller.signal })]) {
      const error = await open()[Symbol.asyncIterator]().next().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(HostClientError)
      expect(error).toMatchObject({ status: 0, code: 'invalid-argument' })
      expect((error as Error).message).toMatch(/retry\.(initialMs|maxMs) must be a positive number of milliseconds/)
    }
    expect(requests).toBe(0)
  })

  it('keeps retrying with valid options (an unreachable host is tried again)', async () => {
    const controller = new AbortController()
    let requests = 0
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async () => {
        if (++requests === 3) controller.abort()
        throw new TypeError('fetch failed')
      },
    })
    const first = await client.hostStream({ retry: { initialMs: 1, maxMs: 2 }, signal: controller.signal })[Symbol.asyncIterator]().next()
    expect(first.done).toBe(true)
    expect(requests).toBe(3)
  })
})
