/**
 * How long a provider asked us to wait, in ms, from the response headers: `retry-after-ms`,
 * `retry-after` (seconds or an HTTP date), then — with `resetHeaders` (the default; pass false
 * unless the response is a 429) — the providers' rate-limit reset headers (OpenAI's
 * `x-ratelimit-reset-requests` / `-tokens` durations such as `6m0s` or `20ms`, Anthropic's
 * `anthropic-ratelimit-*-reset` timestamps). Those say when a limit is fully replenished, which
 * is a wait only when that limit is what refused the request: on a 5xx they would turn a
 * transient failure into a long, exact wait. `undefined` when none says.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now(), { resetHeaders = true }: { resetHeaders?: boolean } = {}): number | undefined {
  const msText = headers.get('retry-after-ms')
  const ms = Number(msText)
  if (msText !== null && msText.trim() !== '' && Number.isFinite(ms) && ms >= 0) return Math.round(ms)
  const retryAfter = headers.get('retry-after')
  if (retryAfter !== null) {
    const seconds = Number(retryAfter)
    if (retryAfter.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
    const date = Date.parse(retryAfter)
    if (Number.isFinite(date)) return Math.max(0, date - now)
  }
  if (!resetHeaders) return undefined
  let longest: number | undefined
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const value = headers.get(name)
    const parsed = value === null ? undefined : parseDuration(value)
    if (parsed !== undefined) longest = Math.max(longest ?? 0, parsed)
  }
  for (const name of ['anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-tokens-reset', 'anthropic-ratelimit-input-tokens-reset', 'anthropic-ratelimit-output-tokens-reset']) {
    const value = headers.get(name)
    const date = value === null ? Number.NaN : Date.parse(value)
    if (Number.isFinite(date)) longest = Math.max(longest ?? 0, Math.max(0, date - now))
  }
  return longest
}

/** `1h2m3.5s`, `6m0s`, `20ms`, `0.5s` → milliseconds; `undefined` if it is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim()
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(trimmed)) return undefined
  let total = 0
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    const value = Number(amount)
    total += unit === 'h' ? value * 3_600_000 : unit === 'm' ? value * 60_000 : unit === 's' ? value * 1000 : value
  }
  return Math.round(total)
}
