import { BosunError } from '@bosun/core'

/**
 * Waits `ms`, or rejects as soon as `signal` aborts (the turn was aborted): the loop then ends the
 * turn `aborted`, and the wait leaves no timer behind.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => new BosunError('ABORTED', 'The rate-limit delay was aborted with the turn.')
    if (signal.aborted) return reject(aborted())
    const onAbort = () => {
      clearTimeout(timer)
      reject(aborted())
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
