import { BosunError } from '@bosun/core'
import type { RetryPolicy } from './options.js'

/** What to do after a failed attempt. */
export type RetryDecision =
  | { retry: true; delayMs: number }
  | {
      retry: false
      /**
       * `not-retried`: the code is not in `retryOn` (or the adapter said no wait helps);
       * `exhausted`: that was the last of `maxAttempts`; `wait-too-long`: the provider asked for a
       * longer wait than `maxDelayMs`.
       */
      why: 'not-retried' | 'exhausted' | 'wait-too-long'
    }

/** Codes that core's `ModelError` marks retryable unless the adapter says otherwise. */
const TRANSIENT = new Set(['RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT', 'EMPTY_RESPONSE'])

/**
 * Decides whether attempt number `attempt` (1 = the first request), which failed with `error`,
 * is followed by another one, and after how long. Pure: the jitter comes from `policy.random`.
 *
 * - Only a `BosunError` whose `code` is in `retryOn` is retried, never `ABORTED`.
 * - An adapter that marks a normally transient error `retryable: false` (OpenAI's
 *   `insufficient_quota` is a non-retryable `RATE_LIMIT`) is believed: no wait fixes it. A code
 *   that is not transient by nature (`INVALID_REQUEST`) is retried when `retryOn` lists it.
 * - A provider's `retryAfterMs` is the wait, exactly, when it is at most `maxDelayMs`; a longer
 *   one is not waited for: the turn ends at once with the error (which carries `retryAfterMs`).
 * - Otherwise the wait is {@link backoffDelay}.
 */
export function decide(error: unknown, attempt: number, policy: RetryPolicy): RetryDecision {
  if (!BosunError.is(error) || error.code === 'ABORTED' || !policy.retryOn.has(error.code)) return { retry: false, why: 'not-retried' }
  const { retryable, retryAfterMs } = error as BosunError & { retryable?: unknown; retryAfterMs?: unknown }
  if (retryable === false && TRANSIENT.has(error.code)) return { retry: false, why: 'not-retried' }
  if (attempt >= policy.maxAttempts) return { retry: false, why: 'exhausted' }
  if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return retryAfterMs > policy.maxDelayMs ? { retry: false, why: 'wait-too-long' } : { retry: true, delayMs: Math.round(retryAfterMs) }
  }
  return { retry: true, delayMs: backoffDelay(attempt, policy) }
}

/**
 * Exponential backoff with full jitter above a floor: after failed attempt `n` the wait is drawn
 * uniformly from `[minDelayMs, min(maxDelayMs, minDelayMs × 2ⁿ)]` — so it is always within
 * `[minDelayMs, maxDelayMs]`, its ceiling doubles with each attempt, and clients that failed
 * together do not retry together.
 */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, 'minDelayMs' | 'maxDelayMs' | 'random'>): number {
  const { minDelayMs, maxDelayMs } = policy
  const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** Math.max(1, attempt))
  const r = Math.min(Math.max(Number(policy.random()) || 0, 0), 1)
  return Math.min(maxDelayMs, Math.max(minDelayMs, Math.round(minDelayMs + r * (ceiling - minDelayMs))))
}
