import { ModelError, type ModelErrorCode, type ModelErrorOptions } from '../model.js'

/**
 * Keeps an API key out of an adapter's error. When `secret` appears in the message or anywhere in
 * the `cause` chain (a server echoing the key in its error body, `Headers` refusing a key with a
 * newline and quoting it), the error is replaced by one with the key cut out of the message as
 * `[redacted]` and no cause: a cause is printed by `console.error` and `util.inspect`, and it
 * cannot be cleaned reliably. Code, status, `retryable` and `retryAfterMs` are kept.
 */
export function redactSecret(error: ModelError, secret: string | undefined): ModelError {
  if (secret === undefined || secret === '' || !mentions(error, secret, 0)) return error
  const options: ModelErrorOptions = { retryable: error.retryable }
  if (error.status !== undefined) options.status = error.status
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  return new ModelError(error.code as ModelErrorCode, error.message.split(secret).join('[redacted]'), options)
}

function mentions(value: unknown, secret: string, depth: number): boolean {
  if (depth > 8 || value === undefined || value === null) return false
  if (typeof value === 'string') return value.includes(secret)
  if (typeof value !== 'object') return false
  const { message, stack, cause } = value as { message?: unknown; stack?: unknown; cause?: unknown }
  return (
    (typeof message === 'string' && message.includes(secret)) ||
    (typeof stack === 'string' && stack.includes(secret)) ||
    mentions(cause, secret, depth + 1)
  )
}
