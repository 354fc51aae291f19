import type { ClusterWatcher } from './store.js'

/**
 * A stream's link to a session it reads from the store's events table on a host that does not
 * own it: the store's wake-ups (LISTEN/NOTIFY, or the watcher's poll) for that session, kept
 * across a read — a wake-up that comes while the stream reads is not lost, the next wait returns
 * at once and the stream reads again.
 */
export class SessionWake {
  #wake: (() => void) | undefined
  #signaled = false
  #ended = false
  readonly #stop: () => void

  constructor(watcher: ClusterWatcher, id: string, readonly onEnd: () => void) {
    this.#stop = watcher.onEvents(id, () => {
      this.#signaled = true
      this.#wake?.()
    })
  }

  get ended(): boolean {
    return this.#ended
  }

  /** Call before reading the events table: wake-ups from now on ask for another read. */
  reading(): void {
    this.#signaled = false
  }

  /** Waits for a wake-up or `ms`; true when it timed out. */
  wait(ms: number): Promise<boolean> {
    if (this.#signaled || this.#ended) return Promise.resolve(false)
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined
        resolve(true)
      }, ms)
      this.#wake = () => {
        this.#wake = undefined
        clearTimeout(timer)
        resolve(false)
      }
    })
  }

  /** Stops listening and calls `onEnd` (once). */
  end(): void {
    if (this.#ended) return
    this.#ended = true
    this.#stop()
    this.#wake?.()
    this.onEnd()
  }
}
