/**
 * Frames arrive one by one (a chunk can be a few characters); the page redraws at most once per
 * animation frame. `createCoalescer` buffers frames and hands each batch to `flush` on the next
 * frame, so streaming text costs one fold and one render per frame, never one per chunk.
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

export function createCoalescer<T>(flush: (batch: T[]) => void, scheduler: Scheduler = animationFrames): Coalescer<T> {
  let buffer: T[] = []
  let handle: number | null = null
  const drain = (): void => {
    if (handle !== null) scheduler.cancel(handle)
    handle = null
    if (buffer.length === 0) return
    const batch = buffer
    buffer = []
    flush(batch)
  }
  return {
    push(item) {
      buffer.push(item)
      if (handle === null) handle = scheduler.request(drain)
    },
    drain,
    cancel() {
      if (handle !== null) scheduler.cancel(handle)
      handle = null
      buffer = []
    },
  }
}
