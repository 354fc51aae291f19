/**
 * Resolves after `ms`, or as soon as `signal` aborts (without rejecting: the caller checks
 * `signal.aborted`). The timer is cleared on abort, so an aborted turn leaves nothing pending.
 */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}
