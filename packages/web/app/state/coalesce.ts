/**
 * Frames arrive one by one (a chunk can be a few characters); the page redraws at most once per
 * animation frame. `createCoalescer` buffers frames and hands each batch to `flush` on the next
 * frame, so streaming text costs one fold and one render per frame, never one per chunk.
 *
 * A flush that took long is followed by a pause as long as it took before the next one: the
 * frames that arrive meanwhile join the next batch. A flush is timed with the render it causes —
 * React renders a store update in a microtask queued during the flush, so the flush is timed to
 * the end of the microtasks after it (`afterFlush`). So folding and drawing take at most about
 * half of the main thread, and the rest is left to reading the stream. (A batch's fold costs
 * what it adds, not the log's size — rows.ts; what a 40,000-event replay costs per batch is the
 * render: one per animation frame made the page fold the replay slower than a few dozen larger
 * batches do.)
 */
export interface Coalescer<T> {
  push(item: T): void
  /** Hands over what is buffered now (e.g. before switching sessions). */
  drain(): void
  cancel(): void
}

export interface Scheduler {
  request(callback: () => void): number
  cancel(handle: number): void
}

/** requestAnimationFrame in a page; a 16 ms timer where there is none (a hidden tab throttles rAF, which is fine). */
const frameApi = globalThis as { requestAnimationFrame?: (callback: () => void) => number; cancelAnimationFrame?: (handle: number) => void }
export const animationFrames: Scheduler =
  frameApi.requestAnimationFrame !== undefined && frameApi.cancelAnimationFrame !== undefined
    ? { request: (callback) => frameApi.requestAnimationFrame!(callback), cancel: (handle) => frameApi.cancelAnimationFrame!(handle) }
    : { request: (callback) => setTimeout(callback, 16) as unknown as number, cancel: (handle) => clearTimeout(handle) }

/** A flush shorter than this (most of a frame left) is followed by the next frame's, as usual. */
export const SLOW_FLUSH_MS = 8

/**
 * Runs `measure` once the work a flush caused is done: by default after the microtasks queued
 * during it (the render of a store update). Tests with a hand-driven clock pass a synchronous one.
 */
export type AfterFlush = (measure: () => void) => void

export function createCoalescer<T>(flush: (batch: T[]) => void, scheduler: Scheduler = animationFrames, clock: () => number = () => performance.now(), afterFlush: AfterFlush = queueMicrotask): Coalescer<T> {
  let buffer: T[] = []
  let handle: number | null = null
  /** No flush on a frame before this time (the pause after a slow flush). */
  let restUntil = 0
  const drain = (): void => {
    if (handle !== null) scheduler.cancel(handle)
    handle = null
    if (buffer.length === 0) return
    const batch = buffer
    buffer = []
    const started = clock()
    flush(batch)
    afterFlush(() => {
      const took = clock() - started
      restUntil = took > SLOW_FLUSH_MS ? clock() + took : 0
    })
  }
  const onFrame = (): void => {
    handle = null
    if (restUntil > clock()) handle = scheduler.request(onFrame)
    else drain()
  }
  return {
    push(item) {
      buffer.push(item)
      if (handle === null) handle = scheduler.request(onFrame)
    },
    drain,
    cancel() {
      if (handle !== null) scheduler.cancel(handle)
      handle = null
      buffer = []
    },
  }
}
