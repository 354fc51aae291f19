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

/**
 * A coalescer on a hand-driven clock whose flush advances it by `foldMs`, and by `renderMs` in a
 * microtask queued during the flush (as React renders a store update); `timedAtOnce` times the
 * flush synchronously (the microtask is then not counted).
 */
function clocked(foldMs: number, renderMs: number, timedAtOnce: boolean) {
  const frames = manualFrames()
  const clock = { now: 0 }
  const batches: number[][] = []
  const flush = (batch: number[]): void => {
    batches.push(batch)
    clock.now += foldMs
    if (renderMs > 0) queueMicrotask(() => void (clock.now += renderMs))
  }
  const coalescer = createCoalescer<number>(flush, frames, () => clock.now, timedAtOnce ? (measure) => measure() : undefined)
  return { frames, clock, batches, coalescer }
}

describe('createCoalescer after a slow flush', () => {
  it('rests as long as the flush took before the next one, and the frames that arrive meanwhile join one batch', () => {
    // Each flush takes 40 ms of the clock (a big batch, or drawing a long log).
    const { frames, clock, batches, coalescer } = clocked(40, 0, true)
    coalescer.push(1)
    frames.tick()
    expect(batches).toEqual([[1]])
    // Frames every 16 ms: none flushes until 40 ms after the slow flush ended (at 80 ms).
    for (const item of [2, 3]) {
      coalescer.push(item)
      clock.now += 16
      frames.tick()
    }
    expect(batches).toEqual([[1]])
    expect(frames.pending()).toBe(1)
    coalescer.push(4)
    clock.now += 16
    frames.tick()
    expect(batches).toEqual([[1], [2, 3, 4]])
  })

  it('a quick flush rests not at all: the next frame flushes', () => {
    const { frames, batches, coalescer } = clocked(2, 0, true)
    coalescer.push(1)
    frames.tick()
    coalescer.push(2)
    frames.tick()
    expect(batches).toEqual([[1], [2]])
  })

  it('times a flush with the render it queued (a microtask, as React renders a store update): a slow render rests too', async () => {
    // The fold is quick; the render React runs in a microtask after it takes 40 ms.
    const { frames, clock, batches, coalescer } = clocked(1, 40, false)
    coalescer.push(1)
    frames.tick()
    await Promise.resolve()
    coalescer.push(2)
    clock.now += 16
    frames.tick()
    expect(batches).toEqual([[1]])
    clock.now += 40
    frames.tick()
    expect(batches).toEqual([[1], [2]])
  })
})
