import { badPortFailure, BosunError, CONTEXT_WINDOW_MESSAGE, excerpt, labelInSentence, MAX_PROVIDER_MESSAGE, maxTokensRefusal, ModelError, type SentMaxTokens } from '@bosun/core'
import type { ModelErrorCode, ModelErrorOptions } from '@bosun/core'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const httpStatus = (value: unknown): number | undefined => {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value
  return Number.isInteger(n) && (n as number) >= 100 && (n as number) <= 599 ? (n as number) : undefined
}

/**
 * The typed error for an `{"error": …}` object sent as a stream payload (OpenAI, OpenRouter,
 * vLLM and llama.cpp report failures after the 200 this way): the code from its status or
 * numeric code, else from its `type` / `code` words, else `SERVER`. A 413 that the request's
 * maximum output tokens (`sent`) alone cause is `INVALID_REQUEST` saying to lower maxTokens, as
 * for the same answer in an HTTP response (`maxTokensOverLimit`).
 */
export function streamError(label: string, error: unknown, secret?: string, sent?: SentMaxTokens): ModelError {
  const fields = isObject(error) ? error : {}
  // Cut: a provider's message can be megabytes, and the error goes into the log and the terminal.
  const message =
    typeof fields.message === 'string' ? excerpt(fields.message, MAX_PROVIDER_MESSAGE, secret) : typeof error === 'string' ? excerpt(error, MAX_PROVIDER_MESSAGE, secret) : excerpt(JSON.stringify(error) ?? '', 200, secret)
  const status = httpStatus(fields.status) ?? httpStatus(fields.code) ?? httpStatus(fields.status_code)
  const kind = [fields.type, fields.code].filter((v) => typeof v === 'string').join(' ')
  let code: ModelErrorCode = 'SERVER'
  const options: ModelErrorOptions = status === undefined ? {} : { status }
  const overBudget = status === undefined ? undefined : maxTokensRefusal(status, `${kind} ${message}`, sent)
  if (overBudget !== undefined) code = overBudget.code
  else if (CONTEXT_WINDOW_MESSAGE.test(`${kind} ${message}`)) code = 'CONTEXT_WINDOW_EXCEEDED'
  else if (status !== undefined) code = ModelError.codeForStatus(status, `${kind} ${message}`)
  else if (/insufficient_quota/i.test(kind)) {
    code = 'RATE_LIMIT'
    options.retryable = false
  } else if (/rate.?limit|too.?many.?requests/i.test(kind)) code = 'RATE_LIMIT'
  else if (/auth|api.?key|permission/i.test(kind)) code = 'AUTH'
  else if (/invalid|bad.?request|not.?found/i.test(kind)) code = 'INVALID_REQUEST'
  const hint = overBudget?.hint ?? ''
  return new ModelError(code, `${label} reported an error in the stream: ${message || kind || 'no message'}${hint}`, options)
}

/** A payload that is not what the protocol allows. */
export function malformed(label: string, problem: string): ModelError {
  return new ModelError('MALFORMED_RESPONSE', `${label} sent a malformed stream: ${problem}.`)
}

/**
 * Any failure of a request as a {@link ModelError}: `ABORTED` when the turn's signal fired,
 * a ModelError as it is (the kit's `PROVIDER_REDIRECT` and `RESPONSE_TOO_LARGE` included), anything
 * else (fetch failed, connection reset, body errored) `TRANSPORT`. `where` is the base URL as it may
 * be shown (no query, no credentials): a refused connection or an unknown host names it and says
 * to check it.
 */
export function classify(error: unknown, signal: AbortSignal, label: string, where: string): ModelError {
  if (signal.aborted) return new ModelError('ABORTED', 'The request was aborted.', { cause: signal.reason })
  if (BosunError.is(error) && 'retryable' in error) return error as ModelError
  const badPort = badPortFailure(error, where)
  if (badPort !== undefined) return badPort
  const code = causeCode(error)
  if (code === 'ECONNREFUSED') {
    return new ModelError(
      'TRANSPORT',
      `Nothing answered at ${where}: the connection was refused (${describe(error)}). Check the adapter's baseURL: is the server running, and listening at that host and port?`,
      { cause: error },
    )
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ModelError(
      'TRANSPORT',
      `The host of ${where} could not be found (${describe(error)}). Check the adapter's baseURL for a typo, and the network connection.`,
      { cause: error },
    )
  }
  return new ModelError('TRANSPORT', `The connection to ${labelInSentence(label)} (${where}) failed: ${describe(error)}`, { cause: error })
}

/**
 * A 404 of `endpoint`, with what to change: the model, when the server's words say it does not
 * know the one sent (`model`) — the path was found, whatever it looks like (DeepSeek's API has no
 * `/v1`); else the path has `/v1` twice (`…/v1/v1/chat/completions`), or no version segment at
 * all (a baseURL of `http://host` for a server that serves `/v1/chat/completions`). `error` as it
 * is otherwise.
 */
export function withPathHint(error: ModelError, endpoint: URL, model?: string): ModelError {
  if (error.status !== 404) return error
  const root = endpoint.pathname.replace(/\/chat\/completions$/, '').replace(/\/+$/, '')
  const base = `${endpoint.origin}${root}`
  let hint: string
  if (namesUnknownModel(error.message, model)) {
    hint = ` (the server does not know the model ${JSON.stringify(model ?? '')}: check the model name — POST ${endpoint.origin}${endpoint.pathname} answered, so baseURL is right)`
  } else if (/\/v1\/v1(\/|$)/.test(root)) {
    const fixed = `${endpoint.origin}${root.replace(/\/v1\/v1(?=\/|$)/, '/v1')}`
    hint = ` (POST ${endpoint.origin}${endpoint.pathname} has /v1 twice: set baseURL to ${fixed} — the adapter adds /chat/completions, not /v1)`
  } else if (!/\/v\d[^/]*(\/|$)/.test(root)) {
    hint = ` (POST ${endpoint.origin}${endpoint.pathname} has no /v1: most OpenAI-compatible servers serve /v1/chat/completions, so set baseURL to ${base}/v1)`
  } else {
    hint = ` (POST ${endpoint.origin}${endpoint.pathname} was not found: check baseURL (${base}) and the model name)`
  }
  const options: ModelErrorOptions = { status: 404, retryable: error.retryable }
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  return new ModelError(error.code as ModelErrorCode, `${error.message.replace(/\.$/, '')}${hint}.`, options)
}

/**
 * Whether a 404's words — after `HTTP 404` in `message` — say the server does not know `model`:
 * OpenAI's `model_not_found` code, or the name as a word of its own (OpenAI's "The model `x` does
 * not exist", Ollama's 'model "x" not found'), not inside a path (`/v1/chat/…`) or a longer name.
 */
function namesUnknownModel(message: string, model: string | undefined): boolean {
  const said = message.slice(message.indexOf('HTTP 404') + 'HTTP 404'.length)
  if (model === undefined || model === '') return false
  return /model_not_found/i.test(said) || said.split(/[\s"'`()[\]{},;]+/).some((word) => word.replace(/[.:]+$/, '').toLowerCase() === model.toLowerCase())
}

/**
 * A refusal whose words name `stream_options` (or its `include_usage`), from a server that refuses
 * the field the adapter sends to ask for the token usage: the message says to turn it off with the
 * adapter's option `streamOptions: false`. `sent`: whether the request held the field (with it off,
 * the refusal is about something else). `error` as it is otherwise.
 */
export function withStreamOptionsHint(error: ModelError, sent: boolean): ModelError {
  if (!sent || error.code !== 'INVALID_REQUEST' || !/stream_options|include_usage/i.test(error.message)) return error
  const options: ModelErrorOptions = { retryable: error.retryable }
  if (error.status !== undefined) options.status = error.status
  const hint = ' (the server refuses the stream_options field, which the adapter sends to ask for the token usage: set the adapter\'s option streamOptions: false to leave it out — the usage is then only what the server sends unasked)'
  return new ModelError('INVALID_REQUEST', `${error.message.replace(/\.$/, '')}${hint}.`, options)
}

/** The `code` of a fetch failure's cause (undici puts `ECONNREFUSED` there, or in the cause's own cause). */
function causeCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code
    if (typeof code === 'string' && code !== '') return code
  }
  return undefined
}

/** `fetch failed (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9)`, `terminated (other side closed)`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const detail = [cause?.code, cause?.message].filter((v) => typeof v === 'string' && v !== '').join(': ')
  return detail ? `${error.message} (${detail})` : error.message
}
