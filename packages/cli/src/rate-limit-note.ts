import type { JsonValue } from '@bosun/core'
import { formatTime } from './session-info.js'

/** The part of rate-limit's rejection metadata (`RateLimitMetadata`) the note says. */
interface RateLimited {
  limit: number
  windowMs: number
  retryAfterMs: number
  counts: 'turns' | 'steps'
  key: string
  onLimit: string
}

/**
 * What the rate-limit plugin's rejection means, in a sentence the user can act on: which limit,
 * for whom, and when to send again — or, with `onLimit: 'requeue'`, when the message goes back in
 * the queue. Its metadata as JSON (`{"limit":1,"windowMs":60000,"retryAfterMs":59125,…}`) said
 * none of that readably. `now` is when the turn ended: printed as it ends (`bosun run`, the
 * chat), the wait counts from there. With `past` (`bosun log`, reading it later) the sentence is
 * told as what happened then: the time it could be sent again and how long after the block that
 * was, not a wait from now. Undefined when `metadata` is not rate-limit's.
 */
export function rateLimitNote(metadata: JsonValue, now: number, past = false): string | undefined {
  const limited = rateLimited(metadata)
  if (limited === undefined) return undefined
  const { limit, windowMs, retryAfterMs, counts, key, onLimit } = limited
  const what = `${limit} ${counts === 'turns' ? 'turn' : 'step'}${limit === 1 ? '' : 's'}${counts === 'steps' ? ' (model calls)' : ''}`
  const whom = key === 'session' ? 'this session' : key
  const at = clock(now + retryAfterMs, retryAfterMs)
  const wait = waitText(retryAfterMs)
  // The same sentence, told as it happens or (`past`) as what happened then.
  const [when, is, back, send] = past
    ? [`${at} (${wait} later)`, 'was', 'was to go back', 'it could be sent again']
    : [`${at} (in ${wait})`, 'is', 'goes back', 'send it again']
  const spent = `the rate limit of ${what} ${per(windowMs)} for ${whom} ${is} used up`
  return onLimit === 'requeue'
    ? `${spent}; the message ${back} in the queue at ${when}.`
    : `${spent}, so the message did not run; ${send} at ${when}.`
}

/**
 * What a turn's error says of the wait its provider asked for (`retryAfterMs`, from Retry-After or
 * the rate-limit reset headers), as a sentence to end the error's line with — or '' when it asked
 * for none. The retry plugin does not wait longer than its `maxDelayMs`, so a long wait ends the
 * turn with the error: without this the user saw "answered HTTP 429" and not when to try again.
 * `now` and `past` as for {@link rateLimitNote}: printed as the turn ends, or read later in the log.
 */
export function providerWaitNote(error: { retryAfterMs?: number }, now: number, past = false): string {
  const ms = error.retryAfterMs
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return ''
  const at = clock(now + ms, ms)
  return past
    ? ` — the provider asked for a wait of ${waitText(ms)}: it could be sent again at ${at}.`
    : ` — the provider asks for a wait of ${waitText(ms)}: send it again at ${at}.`
}

function rateLimited(metadata: JsonValue): RateLimited | undefined {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined
  const { limit, windowMs, retryAfterMs, counts, key, onLimit } = metadata
  const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0
  if (!positive(limit) || !positive(windowMs) || !positive(retryAfterMs)) return undefined
  if ((counts !== 'turns' && counts !== 'steps') || typeof key !== 'string' || typeof onLimit !== 'string') return undefined
  return { limit: limit as number, windowMs: windowMs as number, retryAfterMs: retryAfterMs as number, counts, key, onLimit }
}

/** `a minute`, `an hour`, `a day`, `a second`, else `every 90s`. */
function per(windowMs: number): string {
  const named: Record<number, string> = { 1000: 'a second', 60_000: 'a minute', 3_600_000: 'an hour', 86_400_000: 'a day' }
  return named[windowMs] ?? `every ${waitText(windowMs)}`
}

/** A wait rounded up, so that sending at the time said is never early: `58s`, `3m 05s`, `2h 05m`. */
function waitText(ms: number): string {
  const seconds = Math.ceil(ms / 1000)
  if (seconds <= 60) return `${seconds}s`
  const minutes = Math.ceil(seconds / 60)
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`
}

/** The local time of `at`, `14:22:05`; with the date when the wait is a day or more. */
function clock(at: number, waitMs: number): string {
  const shown = formatTime(Math.ceil(at / 1000) * 1000)
  return waitMs < 86_400_000 ? shown.slice(11) : shown
}
