import { maskCredentials, ModelError, registerSecretsFromEnv } from '@bosun/core'
import type { ModelErrorCode, ModelErrorOptions } from '@bosun/core'

/**
 * The error with anything that looks like a credential masked as `[redacted]`. The provider
 * package reads the key, so the bridge does not know it as the native adapters do
 * (`redactSecret`): it masks the values of the variables whose names say they are secrets
 * (`registerSecretsFromEnv`: `*_API_KEY`, `*_TOKEN`…) and what has a key's form
 * (`maskCredentials`: known key prefixes, `Bearer …`, `key=…`, long random runs). When the message or anything the cause holds (an
 * APICallError's `responseBody`, `url`, `data`…) has such a thing, the error is made again without
 * its cause, which `console.error` and `util.inspect` print whole and which cannot be cleaned
 * reliably; code, status, `retryable` and `retryAfterMs` are kept.
 */
export function withoutCredentials(error: ModelError): ModelError {
  // Again here, not only when the bridge was made: a variable set since is the key sent now.
  registerSecretsFromEnv()
  const message = maskCredentials(error.message)
  if (message === error.message && !holdsCredential(error.cause, 0, new Set())) return error
  const options: ModelErrorOptions = { retryable: error.retryable }
  if (error.status !== undefined) options.status = error.status
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  return new ModelError(error.code as ModelErrorCode, message, options)
}

/**
 * Whether a string in `value` — its message, its cause, any field, however deep (to 8) — looks
 * like a credential. A `stack` is not read: its first line is the message, read already, and the
 * rest is file paths, whose hashes would read as random keys.
 */
function holdsCredential(value: unknown, depth: number, seen: Set<object>): boolean {
  if (depth > 8 || value === undefined || value === null) return false
  if (typeof value === 'string') return maskCredentials(value) !== value
  if (typeof value !== 'object' || seen.has(value)) return false
  seen.add(value)
  const { message, cause } = value as { message?: unknown; cause?: unknown }
  if (holdsCredential(message, depth + 1, seen) || holdsCredential(cause, depth + 1, seen)) return true
  const fields = value instanceof Headers ? [...value.values()] : Object.entries(value).filter(([key]) => key !== 'stack').map(([, field]) => field)
  return fields.some((field) => holdsCredential(field, depth + 1, seen))
}
