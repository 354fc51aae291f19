import {
  badPortFailure, BosunError, excerpt, fetchWithoutRedirects, labelInSentence, MAX_JSON_BODY_BYTES, ModelError, readBodyText, redactSecret,
  registerSecret, serverLabel, shownBaseURL, withContentDeadline,
} from '@bosun/core'
import type { ModelAdapter, ModelCallOptions, ModelChunk, ModelErrorCode, ModelErrorOptions, ModelRequest, SentMaxTokens } from '@bosun/core'
import { DEFAULT_API_KEY_ENV, resolveOptions, type AnthropicOptions, type ResolvedOptions } from './options.js'
import { toAnthropicRequest } from './request.js'
import { sseEvents } from './sse.js'
import { MessageStreamDecoder, streamError, type AnthropicEvent } from './stream.js'
import { responseError, sentMaxTokens } from './too-large.js'

/** The `anthropic-version` header every request carries. */
export const ANTHROPIC_VERSION = '2023-06-01'

/** A {@link ModelAdapter} for the Anthropic Messages API. */
export interface AnthropicAdapter extends ModelAdapter {
  readonly name: 'anthropic'
  /** The configured model (`request.model` overrides it per request). */
  readonly model: string
}

/** What one adapter's requests share. The key lives here only, never on the adapter object. */
interface Connection {
  readonly options: ResolvedOptions
  readonly url: string
  /** The base URL as errors show it: no query (it may carry a token), no fragment, no trailing `/`. */
  readonly where: string
  /**
   * Who answered, as messages name it: `Anthropic` for api.anthropic.com, else `The server at
   * <host>` — a proxy's or a gateway's 401 is theirs, not Anthropic's.
   */
  readonly label: string
  /** Undefined for a server other than api.anthropic.com when `apiKeyEnv` was not named: no key is sent. */
  readonly apiKey: string | undefined
  /** Whether `apiKeyEnv` was named (not the default): a 401 says so, as it names the variable. */
  readonly keyNamed: boolean
}

/**
 * Creates an adapter for the Anthropic Messages API. The API key is read once, now, from the
 * environment variable named by `apiKeyEnv` — by default `ANTHROPIC_API_KEY`, for
 * api.anthropic.com only: another `baseURL` gets no key unless its variable is named — and a
 * missing key throws a `ModelError` `AUTH` naming the variable. Invalid options throw `INVALID_ARGUMENT`.
 *
 * The stream is lazy: no request is sent until it is iterated. Every failure is thrown from the
 * iteration as a `ModelError` with a stable code.
 *
 * @example
 * const model = anthropic({ model: 'claude-sonnet-4-5', maxTokens: 8192, reasoningEffort: 'medium' })
 * const agent = await createAgent({ model })
 */
export function anthropic(options: AnthropicOptions): AnthropicAdapter {
  const resolved = resolveOptions(options)
  const label = serverLabel(resolved.baseURL, { [ANTHROPIC_HOST]: 'Anthropic' })
  const apiKey = readApiKey(options.apiKeyEnv === undefined, resolved, label)
  // Masked by value wherever text leaves the process, not only in this adapter's errors.
  registerSecret(apiKey)
  const connection: Connection = { options: resolved, url: messagesURL(resolved.baseURL), where: shownBaseURL(resolved.baseURL), label, apiKey, keyNamed: options.apiKeyEnv !== undefined }
  return Object.freeze({
    name: 'anthropic' as const,
    model: resolved.model,
    stream: (request: ModelRequest, call?: ModelCallOptions): AsyncIterable<ModelChunk> => streamMessage(connection, request, call?.signal),
  })
}

/**
 * The key. `ANTHROPIC_API_KEY` by default, but only for api.anthropic.com: an Anthropic key is
 * never sent to another server (a proxy, another provider's Anthropic-compatible API) unless its
 * variable is named with `apiKeyEnv` — as the openai adapter keeps `OPENAI_API_KEY` for
 * api.openai.com. Trimmed: `fetch` trims header values, so the trimmed key is what is sent (and
 * what a server echoing it back would show, so what redaction must look for). `label`: the server
 * the key is for, as messages name it.
 */
function readApiKey(byDefault: boolean, { apiKeyEnv, baseURL }: ResolvedOptions, label: string): string | undefined {
  const whose = label === 'Anthropic' ? 'The Anthropic API key' : `The API key for ${labelInSentence(label)}`
  const root = new URL(baseURL)
  if (byDefault && root.hostname.toLowerCase() !== ANTHROPIC_HOST) return undefined
  // The key would cross the network in clear text before the server's redirect to https (which
  // Bosun does not follow anyway): refuse before anything is sent.
  if (root.hostname.toLowerCase() === ANTHROPIC_HOST && root.protocol !== 'https:') {
    throw new ModelError(
      'AUTH',
      `The baseURL ${root.protocol}//${ANTHROPIC_HOST} would send the Anthropic API key unencrypted: write https://${ANTHROPIC_HOST} (or leave baseURL out).`,
      { retryable: false },
    )
  }
  const apiKey = process.env[apiKeyEnv]?.trim()
  if (apiKey === undefined || apiKey === '') {
    throw new ModelError(
      'AUTH',
      `${whose} is missing: set the environment variable ${apiKeyEnv} (or name another one with the option apiKeyEnv).`,
      { retryable: false },
    )
  }
  // A line break or a character beyond Latin-1 inside the key (a typographic quote pasted with
  // it) would fail every request before anything is sent, with an error that reads like a network
  // failure and is retried: said now, naming the variable, never quoting the key.
  try {
    new Headers([['x-api-key', apiKey]])
  } catch {
    throw new ModelError(
      'AUTH',
      `${whose} in the environment variable ${apiKeyEnv} cannot be sent in an HTTP header: it has a line break or a character such as a typographic quote inside. Set ${apiKeyEnv} to the key alone, copied again.`,
      { retryable: false },
    )
  }
  return apiKey
}

const ANTHROPIC_HOST = 'api.anthropic.com'

async function* streamMessage(connection: Connection, request: ModelRequest, signal: AbortSignal | undefined): AsyncGenerator<ModelChunk, void, undefined> {
  // One controller per request: the turn's abort, a deadline and an early stop all close the socket.
  const controller = new AbortController()
  const forward = (): void => controller.abort()
  signal?.addEventListener('abort', forward, { once: true })
  try {
    if (signal?.aborted) throw signal.reason
    const body = toAnthropicRequest(request, connection.options)
    const sent = sentMaxTokens(body)
    yield* withContentDeadline(decode(send(connection, JSON.stringify(body), sent, body.model, controller.signal), sent, connection.label), connection.options, connection.label)
  } catch (error) {
    throw typed(error, signal, connection)
  } finally {
    signal?.removeEventListener('abort', forward)
    controller.abort()
  }
}

/** The chunks of the stream's events, up to `message_stop`; `ping` and the like make none. */
async function* decode(events: AsyncIterable<AnthropicEvent>, sent: SentMaxTokens, label: string): AsyncGenerator<ModelChunk> {
  const decoder = new MessageStreamDecoder(label, sent)
  for await (const event of events) {
    yield* decoder.push(event)
    if (decoder.done) return
  }
  yield* decoder.end()
}

/**
 * Sends the request and yields the stream's events. A redirect is refused (the key goes to
 * `baseURL`'s origin only), a non-streamed body is read up to a cap, and the key is masked in any
 * excerpt of what the server sent before it is cut. `sent`: the body's max_tokens, which a 413 is
 * typed by.
 */
async function* send(connection: Connection, body: string, sent: SentMaxTokens, model: string, signal: AbortSignal): AsyncGenerator<AnthropicEvent> {
  const { apiKey: secret, label } = connection
  const response = await fetchWithoutRedirects(connection.url, { method: 'POST', headers: headers(connection), body, signal })
  if (!response.ok) throw withPathHint(await responseError(label, response, { ...sent, ...(secret === undefined ? { authHint: noKeyHint(connection) } : { secret, authHint: keyHint(connection) }) }), connection, model)
  const type = response.headers.get('content-type')
  if (type !== null && !isEventStream(type)) {
    const text = await readBodyText(response, MAX_JSON_BODY_BYTES, `The HTTP ${response.status} ${type} body from ${labelInSentence(label)}`)
    // A gateway or proxy may answer 200 with Anthropic's error object as JSON: typed like the same
    // error in a stream (an overloaded_error stays a retryable SERVER error).
    const error = errorPayload(text)
    if (error !== undefined) throw streamError(label, error, `in a ${response.status} JSON body`, sent)
    throw new ModelError('MALFORMED_RESPONSE', `${label} answered with ${type} instead of an event stream: ${excerpt(text, 200, secret)}`)
  }
  if (response.body === null) throw new ModelError('EMPTY_RESPONSE', `${label} answered with an empty body.`)
  yield* sseEvents(response.body, label, secret)
}

/**
 * Configured headers may add anything and replace `anthropic-version`, but never the key nor
 * `content-type` and `accept`: the body is JSON and the answer is read as an event stream whatever
 * they say (as the openai adapter keeps its own).
 */
function headers(connection: Connection): Headers {
  const result = new Headers({ 'anthropic-version': ANTHROPIC_VERSION })
  for (const [name, value] of Object.entries(connection.options.headers)) result.set(name, value)
  result.set('content-type', 'application/json')
  result.set('accept', 'text/event-stream')
  if (connection.apiKey === undefined) result.delete('x-api-key')
  else result.set('x-api-key', connection.apiKey)
  return result
}

/**
 * Every failure as a ModelError: an abort of the turn is `ABORTED` whatever surfaced first; a
 * typed error passes; anything else (a refused or reset connection) is `TRANSPORT` — a refused
 * connection or an unknown host names the base URL and says to check it. The key is cut out of
 * any message, in case a proxy echoed it back.
 */
function typed(error: unknown, signal: AbortSignal | undefined, { apiKey, where, label }: Connection): ModelError {
  let result: ModelError
  const code = causeCode(error)
  const badPort = badPortFailure(error, where)
  if (signal?.aborted) result = new ModelError('ABORTED', `The request to ${labelInSentence(label)} was aborted.`, { cause: signal.reason })
  else if (error instanceof ModelError) result = error
  else if (BosunError.is(error)) result = new ModelError('MALFORMED_RESPONSE', error.message, { cause: error })
  else if (badPort !== undefined) result = badPort
  else if (code === 'ECONNREFUSED') {
    const message = `Nothing answered at ${where}: the connection was refused (${describe(error)}). Check the adapter's baseURL: is the server running, and listening at that host and port?`
    result = new ModelError('TRANSPORT', message, { cause: error })
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const message = `The host of ${where} could not be found (${describe(error)}). Check the adapter's baseURL for a typo, and the network connection.`
    result = new ModelError('TRANSPORT', message, { cause: error })
  } else result = new ModelError('TRANSPORT', `The connection to ${labelInSentence(label)} (${where}) failed: ${describe(error)}.`, { cause: error })
  return redactSecret(result, apiKey)
}

/**
 * A 404, with what to change: the model, when Anthropic's words name the one sent (`model: <name>`,
 * a `not_found_error`) — the path was found; else the adapter adds `/v1/messages` itself, so a
 * baseURL ending in `/v1` asks for `…/v1/v1/messages`. Otherwise the path was the documented one:
 * check the base URL and the model.
 */
function withPathHint(error: ModelError, { url, where }: Connection, model: string): ModelError {
  if (error.status !== 404) return error
  const path = new URL(url)
  const endpoint = `${path.origin}${path.pathname}`
  // The name as a word of its own after the status, not inside a path or a longer name.
  const said = error.message.slice(error.message.indexOf('HTTP 404'))
  const modelUnknown = model !== '' && said.split(/[\s"'`()[\]{},;]+/).some((word) => word.replace(/[.:]+$/, '').toLowerCase() === model.toLowerCase())
  const hint = modelUnknown
    ? ` (the server does not know the model ${JSON.stringify(model)}: check the model name — POST ${endpoint} answered, so baseURL is right)`
    : /\/v1\/v1\/messages$/.test(path.pathname)
    ? ` (POST ${endpoint} has /v1 twice: the adapter adds /v1/messages itself, so set baseURL to ${where.replace(/\/v1$/, '')})`
    : ` (POST ${endpoint} was not found: check baseURL (${where}) — without /v1 — and the model name)`
  const options: ModelErrorOptions = { status: 404, retryable: error.retryable }
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  return new ModelError(error.code as ModelErrorCode, `${error.message.replace(/\.$/, '')}${hint}.`, options)
}

/** What a 401 or 403 says when a key was sent: the variable it came from (never the key), as the openai adapter says it. */
function keyHint({ options, keyNamed, where }: Connection): string {
  return ` (check that the environment variable ${options.apiKeyEnv}${keyNamed ? ', named by apiKeyEnv,' : ''} holds a valid key for ${where})`
}

/** What a 401 or 403 from a server that was sent no key says: how to send it one. */
function noKeyHint({ where }: Connection): string {
  return ` (no key was sent: ${DEFAULT_API_KEY_ENV} goes to ${ANTHROPIC_HOST} only. Name the variable holding this server's key with the option apiKeyEnv — "apiKeyEnv": "${DEFAULT_API_KEY_ENV}" for a proxy that takes your Anthropic key — for ${where})`
}

/** Whether a content type is `text/event-stream`: media types are case-insensitive and may carry parameters (`; charset=utf-8`). */
function isEventStream(type: string): boolean {
  return type.split(';', 1)[0]!.trim().toLowerCase() === 'text/event-stream'
}

/** `<baseURL>/v1/messages`, with the base URL's query (a proxy's `?api-version=…`) kept after the path. */
function messagesURL(baseURL: string): string {
  const url = new URL(baseURL)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/messages`
  return url.href
}

/** The `code` of a fetch failure's cause (undici puts `ECONNREFUSED` there, or in the cause's own cause). */
function causeCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code
    if (typeof code === 'string' && code !== '') return code
  }
  return undefined
}

/** The `error` of a `{"type":"error","error":{…}}` JSON body, else undefined. */
function errorPayload(text: string): unknown {
  try {
    const parsed = JSON.parse(text) as { type?: unknown; error?: unknown }
    return parsed?.type === 'error' && typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : undefined
  } catch {
    return undefined
  }
}

/** `fetch failed (connect ECONNREFUSED 127.0.0.1:9)`: undici puts the useful part in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? error.cause.message : undefined
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message
}
