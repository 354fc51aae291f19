import { CONTEXT_WINDOW_MESSAGE, maxTokensRefusal, ModelError, retryAfterMs, tooLargeHint } from '@bosun/core'
import type { ModelErrorCode } from '@bosun/core'
import { QUOTA_HINT, whatToDo } from './hints.js'
import { withoutCredentials } from './mask.js'
import { answeringServer } from './server-name.js'


/** The error an aborted request throws. */
export function abortedError(cause?: unknown): ModelError {
  return new ModelError('ABORTED', 'The request was aborted.', cause === undefined ? {} : { cause })
}

/**
 * Maps whatever an AI SDK model threw (from `doStream`, or from reading its stream) to a typed
 * {@link ModelError}:
 *
 * - an abort (our signal aborted, or an `AbortError`) → `ABORTED`;
 * - fetch refusing a URL with user:password@ → `INVALID_REQUEST`, not retryable, without the URL;
 * - an `APICallError` (or anything with a numeric `statusCode`) → the code of the status
 *   and its words (`ModelError.codeForStatus`: `CONTEXT_WINDOW_EXCEEDED` when the message says
 *   so; a 413 otherwise `RATE_LIMIT` or `INVALID_REQUEST`, by its words), its `isRetryable` (not
 *   for a 413: the code decides), and `retryAfterMs` from its `responseHeaders` — but a 413 over a
 *   per-minute limit that the call's `maxOutputTokens` (`maxTokens`) alone reach is
 *   `INVALID_REQUEST` saying to lower maxTokens (the kit's `maxTokensOverLimit`: compaction cannot
 *   cure it);
 *   without a status (the connection failed) → `TRANSPORT`;
 * - the other AI SDK errors by name: `LoadAPIKeyError` → `AUTH`, a response that does not parse →
 *   `MALFORMED_RESPONSE`, an empty body → `EMPTY_RESPONSE`, a prompt the provider cannot
 *   express → `INVALID_REQUEST`; a `TimeoutError` → `TIMEOUT`;
 * - anything else → `SERVER`.
 *
 * What looks like a credential in the provider's text is masked ({@link withoutCredentials}).
 * `modelId`, when given, lets a 404 of a Responses model say what to use instead ({@link responsesHint});
 * `maxTokens` is the call's `maxOutputTokens`, if it had one.
 */
export function toModelError(error: unknown, signal: AbortSignal, provider: string, modelId?: string, maxTokens?: number): ModelError {
  return error instanceof ModelError ? error : withoutCredentials(typedError(error, signal, provider, modelId, maxTokens))
}

function typedError(error: unknown, signal: AbortSignal, provider: string, modelId?: string, maxTokens?: number): ModelError {
  const name = errorName(error)
  if (signal.aborted || name === 'AbortError' || name === 'ResponseAborted') return abortedError(error)
  // Bosun's own fetch (`fetchWithoutRedirects`, given to the provider) refused a redirect or an
  // oversized body; the provider wraps that in its APICallError. Bosun's error says what happened.
  const own = causeModelError(error)
  if (own !== undefined) return own
  if (refusedUrlCredentials(error)) {
    return new ModelError(
      'INVALID_REQUEST',
      `${provider}: the provider's baseURL carries user:password@, which fetch refuses on every request (the URL is not shown): remove it, and give the key as the provider's apiKey option or its environment variable.`,
      { retryable: false },
    )
  }
  const message = errorMessage(error)
  const status = numberField(error, 'statusCode') ?? numberField(error, 'status')
  // A 2xx on an error is an answer that had begun and could not be read to its end
  // (`@ai-sdk/provider-utils`' "Failed to process successful response"): what failed is its cause.
  if (status !== undefined && status >= 200 && status <= 299) return unreadAnswer(error, signal, provider, status, maxTokens)
  if (status !== undefined && status >= 100 && status <= 599) {
    const body = stringField(error, 'responseBody') ?? ''
    // The kit's rule, as the native adapters apply it: a 413 is a context window, a rate limit or a
    // byte limit by its words, a 400 a context window when they say so; a 413 that maxTokens alone causes, INVALID_REQUEST.
    const overBudget = maxTokensRefusal(status, `${message} ${body}`, { maxTokens, maxTokensField: MAX_TOKENS_FIELD })
    const code = overBudget?.code ?? ModelError.codeForStatus(status, `${message} ${body}`)
    // An exhausted quota (OpenAI's 429 insufficient_quota) is not cured by waiting, whatever the SDK says.
    const quota = status === 429 && /insufficient_quota/.test(`${body} ${nestedKind(error)}`)
    const wait = quota ? undefined : waitFrom(error, code)
    // The SDK retries no 413, but a 413 that is a rate limit (Groq's tokens per minute) passes with time.
    const retryable = quota ? false : status === 413 ? undefined : booleanField(error, 'isRetryable')
    const hint = overBudget?.hint ?? (status === 413 ? tooLargeHint(code, `${message} ${body}`) : '')
    const responses = responsesHint(provider, status, modelId, `${message} ${body}`)
    // What to do, as the native adapters say it — unless a more precise hint above already does.
    const toDo = quota ? QUOTA_HINT : hint === '' && responses === '' ? whatToDo(code, provider, status, modelId) : ''
    return new ModelError(code, `${answered(provider, error)} HTTP ${status}${message ? `: ${message}` : ''}${hint}${responses}${toDo}`, {
      status,
      cause: error,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
      ...(retryable === undefined || code === 'CONTEXT_WINDOW_EXCEEDED' ? {} : { retryable }),
    })
  }
  const code = codeForName(name, message)
  if (code !== undefined) {
    const retryable = booleanField(error, 'isRetryable')
    // An APICallError without a status is a request that got no answer ("Cannot connect to API: …").
    const server = name === 'AI_APICallError' ? answeringServer(error) : undefined
    const said = server === undefined ? message || name : `the connection to ${server} failed: ${message || 'no reason given'}`
    return new ModelError(code, `${provider}: ${said}`, { cause: error, ...(retryable === undefined ? {} : { retryable }) })
  }
  return partError(error, provider)
}

/**
 * An answer whose status was 2xx and whose reading failed. An AI SDK error as its cause (a chunk
 * that does not parse: `MALFORMED_RESPONSE`) is typed as that error; anything else is what the
 * body's reader threw — undici's "terminated" when the connection dropped mid-stream — so
 * `TRANSPORT`, retryable, as the native adapters type a cut connection. Typed by the status, it was
 * an `INVALID_REQUEST` "answered HTTP 200" that no retry sent again.
 */
function unreadAnswer(error: unknown, signal: AbortSignal, provider: string, status: number, maxTokens?: number): ModelError {
  const cause = (error as { cause?: unknown } | null)?.cause
  if (errorName(cause).startsWith('AI_')) return typedError(cause, signal, provider, undefined, maxTokens)
  const server = answeringServer(error)
  if (cause === undefined) {
    const answer = server === undefined ? `its HTTP ${status} answer` : `the HTTP ${status} answer of ${server}`
    return new ModelError('MALFORMED_RESPONSE', `${provider}: ${answer} could not be processed: ${errorMessage(error) || 'no reason given'}`, { cause: error })
  }
  return new ModelError('TRANSPORT', `${provider}: the connection${server === undefined ? '' : ` to ${server}`} failed while the answer streamed: ${causeChain(cause)}`, { cause: error, retryable: true })
}

/**
 * The start of an HTTP refusal's message: `openai.chat: the server at 127.0.0.1:4000 answered`,
 * `anthropic.messages: Anthropic answered` — the provider's id says which model object, the
 * request's URL which server (a gateway's refusal is not the provider's). `openai.chat answered`
 * when the error carries no URL.
 */
function answered(provider: string, error: unknown): string {
  const server = answeringServer(error)
  return server === undefined ? `${provider} answered` : `${provider}: ${server} answered`
}

/** The messages of an error and of its causes: `terminated (other side closed)`. */
function causeChain(error: unknown): string {
  const messages: string[] = []
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const message = errorMessage(at)
    if (message !== '' && !messages.includes(message)) messages.push(message)
  }
  if (messages.length === 0) return errorMessage(error) || 'no reason given'
  return messages.length === 1 ? messages[0]! : `${messages[0]} (${messages.slice(1).join(': ')})`
}

/**
 * An `error` part of the stream. Providers put their own error object there (Anthropic
 * `{ type: 'overloaded_error', message }`, OpenAI `{ code: 'rate_limit_exceeded', message }`),
 * or an Error: the code is read from its `type`/`code`; an unknown failure mid-stream is a
 * (retryable) `SERVER` error. An AI SDK error (named `AI_…`) is typed as {@link toModelError}
 * types it. What looks like a credential in it is masked. `maxTokens`: the call's `maxOutputTokens`.
 */
export function streamError(error: unknown, provider: string, maxTokens?: number): ModelError {
  if (error instanceof ModelError) return error
  // A provider also puts an AI SDK error there — a chunk it could not parse or validate
  // (`JSONParseError`, `TypeValidationError`), an `APICallError`: typed as the same error thrown is.
  return withoutCredentials(errorName(error).startsWith('AI_') ? typedError(error, NOT_ABORTED, provider, undefined, maxTokens) : partError(error, provider, maxTokens))
}

/** The call setting that carries maxTokens to the provider, named in a 413's message. */
const MAX_TOKENS_FIELD = 'maxOutputTokens'

/**
 * `openai('…')` of @ai-sdk/openai 3 asks the Responses API (`POST /responses`, provider id
 * `openai.responses`), which OpenAI-compatible servers (llama.cpp, vLLM, Ollama, proxies) do not
 * have: their 404 alone says nothing of that, so it names the model that asks Chat Completions.
 */
function responsesHint(provider: string, status: number, modelId: string | undefined, said: string): string {
  if (status !== 404 || provider !== 'openai.responses') return ''
  // A server that has the Responses API and does not know the model (api.openai.com's
  // `model_not_found`): the model's name is what to fix, and openai.chat would not help.
  if (/model_not_found|\bmodel\b[^.]*\bdoes not exist\b/i.test(said)) return ''
  const call = modelId === undefined ? "openai.chat('…')" : `openai.chat(${JSON.stringify(modelId).replace(/^"|"$/g, "'")})`
  return `. openai('…') asks the Responses API (POST /responses), which OpenAI-compatible servers do not have: for a Chat Completions server use ${call}`
}

/** An error part is not an abort: the reading loop reports the turn's abort itself. */
const NOT_ABORTED = new AbortController().signal

function partError(error: unknown, provider: string, maxTokens?: number): ModelError {
  const kind = `${stringField(error, 'type') ?? ''} ${stringField(error, 'code') ?? ''} ${nestedKind(error)}`.trim()
  const message = errorMessage(error)
  // Anthropic's request_too_large is a 413 in a stream: maxTokens alone over the limit is the same INVALID_REQUEST.
  const overBudget = /request[_ ]too[_ ]large/i.test(kind) ? maxTokensRefusal(413, message, { maxTokens, maxTokensField: MAX_TOKENS_FIELD }) : undefined
  const code = overBudget?.code ?? codeForKind(kind, message)
  const hint = overBudget?.hint ?? whatToDo(code, provider)
  return new ModelError(code, `${provider} failed: ${message || kind || 'unknown error'}${hint}`, { cause: error })
}

function causeModelError(error: unknown): ModelError | undefined {
  let cause = (error as { cause?: unknown } | null)?.cause
  for (let depth = 0; depth < 8 && typeof cause === 'object' && cause !== null; depth++) {
    if (cause instanceof ModelError) return cause
    cause = (cause as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * fetch's refusal of a URL with user:password@ (Node's TypeError 'Request cannot be constructed
 * from a URL that includes credentials: <the URL>'), which the provider passes on as it is: it
 * fails every request the same way, and its message and cause quote the password, so the error
 * made of it keeps neither (the native adapters refuse such a baseURL when they are created).
 */
function refusedUrlCredentials(error: unknown): boolean {
  for (let at = error, depth = 0; typeof at === 'object' && at !== null && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    if (/URL that includes credentials/i.test(stringField(at, 'message') ?? '')) return true
  }
  return false
}

function codeForName(name: string, message: string): ModelErrorCode | undefined {
  switch (name) {
    case 'AI_APICallError':
      return 'TRANSPORT' // no status: the request never got an answer
    case 'AI_LoadAPIKeyError':
      return 'AUTH'
    case 'AI_EmptyResponseBodyError':
      return 'EMPTY_RESPONSE'
    case 'AI_JSONParseError':
    case 'AI_TypeValidationError':
    case 'AI_InvalidResponseDataError':
      return 'MALFORMED_RESPONSE'
    case 'AI_InvalidPromptError':
    case 'AI_UnsupportedFunctionalityError':
    case 'AI_InvalidArgumentError':
    case 'AI_TooManyEmbeddingValuesForCallError':
      return CONTEXT_WINDOW_MESSAGE.test(message) ? 'CONTEXT_WINDOW_EXCEEDED' : 'INVALID_REQUEST'
    case 'TimeoutError':
      return 'TIMEOUT'
    default:
      if (/fetch failed|ECONNRESET|ECONNREFUSED|ENOTFOUND|socket hang up|network/i.test(message)) return 'TRANSPORT'
      return undefined
  }
}

function codeForKind(kind: string, message: string): ModelErrorCode {
  const text = `${kind} ${message}`
  if (/rate[_ ]?limit|too[_ ]many[_ ]requests|quota/i.test(kind)) return 'RATE_LIMIT'
  if (/context[_ ]length|context[_ ]window/i.test(kind) || CONTEXT_WINDOW_MESSAGE.test(message)) return 'CONTEXT_WINDOW_EXCEEDED'
  // Anthropic's request_too_large: a 413 in a stream, typed by its words as the response would be.
  if (/request[_ ]too[_ ]large/i.test(kind)) return ModelError.codeForStatus(413, message)
  if (/authentication|permission|unauthori[sz]ed|api[_ ]key/i.test(kind)) return 'AUTH'
  if (/timeout|timed[_ ]out/i.test(text)) return 'TIMEOUT'
  if (/invalid[_ ]request|not[_ ]found|invalid/i.test(kind)) return 'INVALID_REQUEST'
  return 'SERVER' // overloaded_error, api_error, server_error…: worth a retry
}

function waitFrom(error: unknown, code: ModelErrorCode): number | undefined {
  const headers = (error as { responseHeaders?: unknown } | null)?.responseHeaders
  if (typeof headers !== 'object' || headers === null) return undefined
  try {
    const parsed = headers instanceof Headers ? headers : new Headers(headers as Record<string, string>)
    return retryAfterMs(parsed, Date.now(), { resetHeaders: code === 'RATE_LIMIT' })
  } catch {
    return undefined // a header value that Headers refuses
  }
}

function nestedKind(error: unknown): string {
  const inner = (error as { error?: unknown } | null)?.error
  return `${stringField(inner, 'type') ?? ''} ${stringField(inner, 'code') ?? ''}`.trim()
}

function errorName(error: unknown): string {
  return stringField(error, 'name') ?? ''
}

function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error
  return (
    stringField(error, 'message') ??
    stringField((error as { error?: unknown } | null)?.error, 'message') ??
    ''
  )
}

function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const field = (value as Record<string, unknown>)[key]
  return typeof field === 'string' && field !== '' ? field : undefined
}

function numberField(value: unknown, key: string): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const field = (value as Record<string, unknown>)[key]
  return typeof field === 'number' && Number.isInteger(field) ? field : undefined
}

function booleanField(value: unknown, key: string): boolean | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const field = (value as Record<string, unknown>)[key]
  return typeof field === 'boolean' ? field : undefined
}
