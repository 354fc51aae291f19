import { BosunError, excerpt, ModelError } from '@bosun/core'
import type { ModelErrorCode, ModelErrorOptions } from '@bosun/core'

const CONTEXT_WINDOW = /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|input is too long|reduce the length/i

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const httpStatus = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value
  return Number.isInteger(n) && (n as number) >= 100 && (n as number) <= 599 ? (n as number) : undefined
}

/**
 * The typed error for an `{"error": …}` object sent as a stream payload (OpenAI, OpenRouter,
 * vLLM and llama.cpp report failures after the 200 this way): the code from its status or
 * numeric code, else from its `type` / `code` words, else `SERVER`.
 */
export function streamError(label: string, error: unknown, secret?: string): ModelError {
  const fields = isObject(error) ? error : {}
  const message =
    typeof fields.message === 'string' ? fields.message : typeof error === 'string' ? error : excerpt(JSON.stringify(error) ?? '', 200, secret)
  const status = httpStatus(fields.status) ?? httpStatus(fields.code) ?? httpStatus(fields.status_code)
  const kind = [fields.type, fields.code].filter((v) => typeof v === 'string').join(' ')
  let code: ModelErrorCode = 'SERVER'
  const options: ModelErrorOptions = status === undefined ? {} : { status }
  if (CONTEXT_WINDOW.test(`${kind} ${message}`)) code = 'CONTEXT_WINDOW_EXCEEDED'
  else if (status !== undefined) code = ModelError.codeForStatus(status)
  else if (/insufficient_quota/i.test(kind)) {
    code = 'RATE_LIMIT'
    options.retryable = false
  } else if (/rate.?limit|too.?many.?requests/i.test(kind)) code = 'RATE_LIMIT'
  else if (/auth|api.?key|permission/i.test(kind)) code = 'AUTH'
  else if (/invalid|bad.?request|not.?found/i.test(kind)) code = 'INVALID_REQUEST'
  return new ModelError(code, `${label} reported an error in the stream: ${message || kind || 'no message'}`, options)
}

/** A payload that is not what the protocol allows. */
export function malformed(label: string, problem: string): ModelError {
  return new ModelError('MALFORMED_RESPONSE', `${label} sent a malformed stream: ${problem}.`)
}

/**
 * Any failure of a request as a {@link ModelError}: `ABORTED` when the turn's signal fired,
 * a ModelError as it is (the kit's `PROVIDER_REDIRECT` and `RESPONSE_TOO_LARGE` included), anything
 * else (fetch failed, connection reset, body errored) `TRANSPORT`.
 */
export function classify(error: unknown, signal: AbortSignal, label: string): ModelError {
  if (signal.aborted) return new ModelError('ABORTED', 'The request was aborted.', { cause: signal.reason })
  if (BosunError.is(error) && 'retryable' in error) return error as ModelError
  return new ModelError('TRANSPORT', `The connection to ${label} failed: ${describe(error)}`, { cause: error })
}

/** `fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)`, `terminated (other side closed)`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const detail = [cause?.code, cause?.message].filter((v) => typeof v === 'string' && v !== '').join(': ')
  return detail ? `${error.message} (${detail})` : error.message
}
