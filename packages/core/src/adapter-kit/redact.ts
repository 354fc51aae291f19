import { ModelError, type ModelErrorCode, type ModelErrorOptions } from '../model.js'

/**
 * The shortest piece of a key that is masked when only part of it is left (a provider's echo cut
 * by an excerpt, a message cut by someone else). Shorter pieces stay: 7 characters of a key's
 * start (`sk-ant-`, `sk-proj`) are the public prefix every key of that provider shares.
 */
export const MIN_MASKED_KEY_PREFIX = 8

const MASK = '[redacted]'

/**
 * `text` with `secret` replaced by `[redacted]`: every whole occurrence, and every run of at least
 * {@link MIN_MASKED_KEY_PREFIX} characters that is a prefix of the key — what is left of a key that
 * straddled a cut. Mask before cutting (see {@link excerpt}); this catches what a cut elsewhere left.
 */
export function maskSecret(text: string, secret: string | undefined): string {
  if (secret === undefined || secret === '') return text
  const out = text.split(secret).join(MASK)
  const min = Math.min(MIN_MASKED_KEY_PREFIX, secret.length)
  if (min === secret.length) return out // a key this short is only matched whole
  const head = secret.slice(0, min)
  // The pieces joined once: rebuilding the string at each match made a body of many prefixes
  // (`sk-proj-` repeated: 8 characters of an OpenAI project key are public) quadratic — 47 s for
  // 256 KB on the event loop, for an error body a server chose.
  const pieces: string[] = []
  let from = 0
  for (let at = out.indexOf(head); at !== -1; at = out.indexOf(head, from)) {
    let end = at + min
    while (end < out.length && end - at < secret.length && out[end] === secret[end - at]) end++
    pieces.push(out.slice(from, at), MASK)
    from = end
  }
  if (from === 0) return out
  pieces.push(out.slice(from))
  return pieces.join('')
}

/**
 * A short excerpt of a provider's text for an error message: whitespace folded, the key masked
 * **before** the cut at `max` characters (so no part of a key straddling the cut survives), `…`
 * marking the cut.
 */
export function excerpt(text: string, max: number, secret?: string): string {
  const flat = maskSecret(text, secret).replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

/**
 * Keeps an API key out of an adapter's error. When `secret` — or a piece of it of at least
 * {@link MIN_MASKED_KEY_PREFIX} characters from its start — appears in the message or anywhere in
 * the `cause` chain (a server echoing the key in its error body, `Headers` refusing a key with a
 * newline and quoting it), the error is replaced by one with the key masked in the message as
 * `[redacted]` and no cause: a cause is printed by `console.error` and `util.inspect`, and it
 * cannot be cleaned reliably. Code, status, `retryable` and `retryAfterMs` are kept.
 */
export function redactSecret(error: ModelError, secret: string | undefined): ModelError {
  if (secret === undefined || secret === '' || !mentions(error, secret, 0)) return error
  const options: ModelErrorOptions = { retryable: error.retryable }
  if (error.status !== undefined) options.status = error.status
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  return new ModelError(error.code as ModelErrorCode, maskSecret(error.message, secret), options)
}

/**
 * Whether `secret` (or a long enough piece of it) appears in `value`: its message, stack and cause,
 * and every other field of it — an SDK's error keeps the provider's answer in fields of its own
 * (`responseBody`, `url`, `data`), which `util.inspect` prints as readily as the message.
 */
function mentions(value: unknown, secret: string, depth: number, seen = new Set<object>()): boolean {
  if (depth > 8 || value === undefined || value === null) return false
  if (typeof value === 'string') return maskSecret(value, secret) !== value
  if (typeof value !== 'object' || seen.has(value)) return false
  seen.add(value)
  const { message, stack, cause } = value as { message?: unknown; stack?: unknown; cause?: unknown }
  if (mentions(message, secret, depth + 1, seen) || mentions(stack, secret, depth + 1, seen) || mentions(cause, secret, depth + 1, seen)) return true
  if (value instanceof Headers) return [...value.values()].some((field) => mentions(field, secret, depth + 1, seen))
  return Object.values(value).some((field) => mentions(field, secret, depth + 1, seen))
}
