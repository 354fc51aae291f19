import { BosunError } from '@bosun/core'

/**
 * A timer's longest wait (about 24.8 days): Node fires a longer one after 1 ms, with a
 * `TimeoutOverflowWarning`. A wait may be longer (a `windowMs` of a month), so it is taken in
 * steps of at most this, each caller checking again when one ends.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Waits `ms`, but at most {@link MAX_TIMER_MS} (the caller checks again and waits on), or rejects
 * as soon as `signal` aborts (the turn was aborted): the loop then ends the turn `aborted`, and
 * the wait leaves no timer behind.
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
    }, Math.min(ms, MAX_TIMER_MS))
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
