import { describe, expect, it } from 'vitest'
import { waitTime } from './window.js'

const minute = { limit: 3, windowMs: 60_000, burst: 3 }

describe('waitTime', () => {
  it('is 0 while the window has room', () => {
    expect(waitTime([], 0, minute)).toBe(0)
    expect(waitTime([0, 10], 20, minute)).toBe(0)
  })

  it('waits for the oldest event that must leave a full window', () => {
    expect(waitTime([0, 10, 20], 30, minute)).toBe(59_970)
    // an event exactly windowMs old has left the window: (now - windowMs, now]
    expect(waitTime([0, 10, 20], 60_000, minute)).toBe(0)
  })

  it('ignores events before the window', () => {
    expect(waitTime([-70_000, -65_000, 0, 10], 20, minute)).toBe(0)
  })

  it('with a smaller burst, refills one slot per windowMs / limit (a token bucket)', () => {
    const bucket = { limit: 60, windowMs: 60_000, burst: 3 }
    expect(waitTime([0, 0], 0, bucket)).toBe(0)
    expect(waitTime([0, 0, 0], 0, bucket)).toBe(1000)
    expect(waitTime([0, 0, 0], 400, bucket)).toBe(600)
    expect(waitTime([0, 0, 0, 1000], 1000, bucket)).toBe(1000)
    // after a quiet spell the bucket is full again
    expect(waitTime([0, 0, 0], 3000, bucket)).toBe(0)
  })

  it('never admits more than the limit in one window, whatever the burst', () => {
    const times = Array.from({ length: 60 }, (_, i) => i * 1000)
    expect(waitTime(times, 59_500, { limit: 60, windowMs: 60_000, burst: 60 })).toBe(500)
    expect(waitTime(times, 59_500, { limit: 60, windowMs: 60_000, burst: 1 })).toBe(500)
  })

  it('rounds up to whole milliseconds', () => {
    expect(waitTime([0], 0.5, { limit: 1, windowMs: 10, burst: 1 })).toBe(10)
  })
})
