import type { LiveSession } from './sessions.js'

/**
 * A stream's link to its session's writer: the writer only signals (never awaits a client), and
 * the stream's pull waits for that signal or a keep-alive timeout. Shared by the session stream
 * and the AI SDK stream, which read the log by seq in the same way.
 */
export interface Subscription {
  /** Waits for the next event or `ms`; true when it timed out. */
  wait(ms: number): Promise<boolean>
  /** Unsubscribes and calls `onEnd` (once). */
  end(): void
  readonly ended: boolean
}

export function subscribe(live: LiveSession, onEnd: () => void): Subscription {
  let wake: (() => void) | undefined
  // A signal while no one waits — the pull is between its read of the log and its wait, an await
  // apart, where the agent may append — is kept for the next wait: else that event waited for the
  // next append or the keep-alive (15 s) to be sent.
  let signaled = false
  const listener = (): void => {
    const w = wake
    wake = undefined
    if (w) w()
    else signaled = true
  }
  let ended = false
  live.listeners.add(listener)
  return {
    get ended() {
      return ended
    },
    end() {
      if (ended) return
      ended = true
      live.listeners.delete(listener)
      listener()
      onEnd()
    },
    async wait(ms) {
      if (signaled) {
        signaled = false
        return false
      }
      let timer: ReturnType<typeof setTimeout> | undefined
      const timedOut = await new Promise<boolean>((resolve) => {
        wake = () => resolve(false)
        timer = setTimeout(() => resolve(true), ms)
      })
      clearTimeout(timer)
      wake = undefined
      return timedOut
    },
  }
}
