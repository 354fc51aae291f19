import { HostError } from './errors.js'

/** What `retry-after` (seconds) tells a client whose session's open outlasted `limits.openTimeoutMs`. */
const OPEN_RETRY_AFTER_S = 5

/** `503 session-unavailable`: the open of `id` did not finish within `ms`. */
export function openTimedOut(id: string, ms: number): HostError {
  return new HostError(
    'session-unavailable',
    `Opening session "${id}" did not finish within ${ms} ms (limits.openTimeoutMs): a plugin's setup or a hook run at the open did not settle, or the store did not answer. Check the host's log and the setups of the plugins the session's agent uses, then retry in ${OPEN_RETRY_AFTER_S} s.`,
    { id, retryAfter: OPEN_RETRY_AFTER_S },
  )
}

/**
 * `opening`, or `openTimedOut` once `ms` have passed: a plugin setup or hook that never settles
 * must not hold a request, a takeover or a mail round for good. `expired` is set when the wait
 * gave up, for the open still running to close what it opens late (see SessionManager).
 */
export async function withinOpenTimeout<T>(id: string, ms: number, opening: Promise<T>, deadline: { expired: boolean }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.expired = true
      reject(openTimedOut(id, ms))
    }, ms)
  })
  try {
    return await Promise.race([opening, timedOut])
  } finally {
    clearTimeout(timer)
  }
}
