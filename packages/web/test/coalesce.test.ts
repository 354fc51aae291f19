import { describe, expect, it } from 'vitest'
import { createCoalescer, type Scheduler } from '../app/state/coalesce.js'

/** A frame clock the test advances by hand. */
function manualFrames(): Scheduler & { tick(): void; pending(): number } {
  let next = 1
  const callbacks = new Map<number, () => void>()
  return {
    request: (callback) => {
      callbacks.set(next, callback)
      return next++
    },
    cancel: (handle) => void callbacks.delete(handle),
    tick: () => {
      const due = [...callbacks.values()]
      callbacks.clear()
      for (const callback of due) callback()
    },
    pending: () => callbacks.size,
  }
}

describe('createCoalescer', () => {
  it('hands every chunk that arrived during a frame to one flush, in order', () => {
    const frames = manualFrames()
    const batches: number[][] = []
    const coalescer = createCoalescer<number>((batch) => batches.push(batch), frames)
    for (let index = 0; index < 100; index += 1) coalescer.push(index)
    expect(batches).toEqual([])
    expect(frames.pending()).toBe(1)
    frames.tick()
    coalescer.push(100)
    frames.tick()
    expect(batches).toEqual([Array.from({ length: 100 }, (_, index) => index), [100]])
  })

  it('drain flushes at once; cancel drops what is buffered', () => {
    const frames = manualFrames()
    const batches: string[][] = []
    const coalescer = createCoalescer<string>((batch) => batches.push(batch), frames)
    coalescer.push('a')
    coalescer.drain()
    coalescer.push('b')
    coalescer.cancel()
    frames.tick()
    expect(batches).toEqual([['a']])
    expect(frames.pending()).toBe(0)
  })
})

describe('createCoalescer after a slow flush', () => {
  it('rests as long as the flush took before the next one, and the frames that arrive meanwhile join one batch', () => {
    const frames = manualFrames()
    let now = 0
    const batches: number[][] = []
    // Each flush takes 40 ms of the clock (as folding into a long log does).
    const coalescer = createCoalescer<number>((batch) => {
      batches.push(batch)
      now += 40
    }, frames, () => now)
    coalescer.push(1)
    frames.tick()
    expect(batches).toEqual([[1]])
    // Frames every 16 ms: none flushes until 40 ms after the slow flush ended (at 80 ms).
    for (const item of [2, 3]) {
      coalescer.push(item)
      now += 16
      frames.tick()
    }
    expect(batches).toEqual([[1]])
    expect(frames.pending()).toBe(1)
    coalescer.push(4)
    now += 16
    frames.tick()
    expect(batches).toEqual([[1], [2, 3, 4]])
  })

  it('a quick flush rests not at all: the next frame flushes', () => {
    const frames = manualFrames()
    let now = 0
    const batches: number[][] = []
    const coalescer = createCoalescer<number>((batch) => {
      batches.push(batch)
      now += 2
    }, frames, () => now)
    coalescer.push(1)
    frames.tick()
    coalescer.push(2)
    frames.tick()
    expect(batches).toEqual([[1], [2]])
  })
})
