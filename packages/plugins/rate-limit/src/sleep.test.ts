// The delay's wait: abort-aware, and no longer than a timer can wait (the caller checks again).
import { afterEach, expect, it, vi } from 'vitest'
import { MAX_TIMER_MS, sleep } from './sleep.js'

afterEach(() => vi.useRealTimers())

it('waits at most a timer\'s longest wait, and not a millisecond for a longer one (a window of a month)', async () => {
  vi.useFakeTimers() // they fire a wait past 2^31 - 1 ms after 1 ms, as Node does
  let slept = false
  void sleep(30 * 24 * 3_600_000, new AbortController().signal).then(() => (slept = true))
  await vi.advanceTimersByTimeAsync(1000)
  expect(slept).toBe(false)
  await vi.advanceTimersByTimeAsync(MAX_TIMER_MS - 1000)
  expect(slept).toBe(true)
})

it('rejects with ABORTED when the turn is aborted, leaving no timer', async () => {
  vi.useFakeTimers()
  const controller = new AbortController()
  const waiting = sleep(2 ** 40, controller.signal)
  controller.abort()
  await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' })
  expect(vi.getTimerCount()).toBe(0)
})
