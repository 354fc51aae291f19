import {
  BosunError, ErrorCodes, errorFromResponse, fetchWithoutRedirects, labelInSentence, MAX_JSON_BODY_BYTES, ModelError, readBodyText, redactSecret,
  registerSecret, serverLabel, shownBaseURL, withContentDeadline,
} from '@bosun/core'
import type { Deadlines, ModelAdapter, ModelCallOptions, ModelChunk, ModelRequest, SentMaxTokens } from '@bosun/core'
import { classify, withPathHint, withStreamOptionsHint } from './errors.js'
import { DEFAULT_BASE_URL, DEFAULT_IDLE_TIMEOUT_MS } from './options.js'
import type { OpenAIOptions } from './options.js'
import { buildBody, sentMaxTokens, type RequestSettings } from './request.js'
import { ChunkMapper, chunksFromJson, chunksFromSse } from './stream.js'
import { validateOptions } from './validate.js'

/** The OpenAI-compatible model adapter. */
export interface OpenAIAdapter extends ModelAdapter {
  readonly name: 'openai'
  /** The configured model (`request.model` overrides it per request). */
  readonly model: string
  /**
   * The API root requests go to (`<baseURL>/chat/completions`), as it may be shown or logged: a
   * query the option gave (`?api-version=…`) is sent with every request, but shown here with its
   * values `[redacted]`, since a proxy may take its key there.
   */
  readonly baseURL: string
  /** The tag of this server's reasoning blocks; see {@link OpenAIOptions.provider}. */
  readonly provider: string
}

/**
 * The providers messages name, by the host of their API (a subdomain included); any other server —
 * a proxy or gateway too, whatever its option `provider` tags reasoning with — is "The server at <host>".
 */
const KNOWN_HOSTS: Readonly<Record<string, string>> = { 'api.openai.com': 'OpenAI', 'deepseek.com': 'DeepSeek', 'openrouter.ai': 'OpenRouter', 'api.x.ai': 'xAI' }

/**
 * Creates a Chat Completions adapter for OpenAI or any compatible server (DeepSeek, Ollama,
 * vLLM, llama.cpp, OpenRouter…) at `baseURL`. Options are checked (`INVALID_ARGUMENT`) and the
 * API key is read from the environment now (`CONFIG_INVALID` naming the variable when
 * `apiKeyEnv` names an unset one). Nothing is sent until the stream of a request is iterated.
 *
 * @example
 * const model = openai({ baseURL: 'https://api.deepseek.com', model: 'deepseek-chat', apiKeyEnv: 'DEEPSEEK_API_KEY' })
 * const agent = await createAgent({ model })
 */
export function openai(options: OpenAIOptions): OpenAIAdapter {
  const checked = validateOptions(options)
  const root = new URL(checked.baseURL ?? DEFAULT_BASE_URL)
  const endpoint = new URL(root)
  endpoint.pathname = `${root.pathname.replace(/\/+$/, '')}/chat/completions`
  const provider = checked.provider ?? providerFor(root)
  const label = serverLabel(root, KNOWN_HOSTS)
  // The base URL as errors show it: no query (it may carry a token), no fragment.
  const where = shownBaseURL(root)
  // Kept in this closure only: never a property, never logged, never in an error — and
  // registered, so that text quoting it anywhere else in the process (an event, a plugin's error,
  // the terminal) is masked too.
  const apiKey = readApiKey(checked, root)
  registerSecret(apiKey)
  const authHint = authHintFor(checked, apiKey !== undefined, where)
  const deadlines: Deadlines = { idleTimeoutMs: checked.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, timeoutMs: checked.timeoutMs }
  const extraHeaders = { ...checked.headers }
  const settings: RequestSettings = {
    model: checked.model,
    provider,
    reasoningPassback: checked.reasoningPassback ?? true,
    streamOptions: checked.streamOptions ?? true,
    maxTokensField: checked.maxTokensField ?? 'max_tokens',
    ...(checked.maxTokens !== undefined ? { maxTokens: checked.maxTokens } : {}),
    ...(checked.temperature !== undefined ? { temperature: checked.temperature } : {}),
    ...(checked.reasoningEffort !== undefined ? { reasoningEffort: checked.reasoningEffort } : {}),
  }

  /**
   * One HTTP exchange: the request, then the chunks of the answer (or its typed error). A
   * redirect is refused (the key and `headers` go to `baseURL`'s origin only) and a non-streamed
   * body is read up to a cap; the key is masked in any excerpt of what the server sent. `sent`:
   * the maximum output tokens the body carries, which a 413 is typed by.
   */
  async function* exchange(body: string, sent: SentMaxTokens | undefined, model: string | undefined, signal: AbortSignal): AsyncGenerator<ModelChunk> {
    const headers = new Headers(extraHeaders)
    headers.set('content-type', 'application/json')
    headers.set('accept', 'text/event-stream')
    if (apiKey !== undefined) headers.set('authorization', `Bearer ${apiKey}`)
    const response = await fetchWithoutRedirects(endpoint, { method: 'POST', headers, body, signal })
    if (!response.ok) {
      const options = { secret: apiKey, authHint, ...sent }
      throw withStreamOptionsHint(withPathHint(await errorFromResponse(label, response, options), endpoint, model), settings.streamOptions)
    }
    if (response.body === null) throw new ModelError('EMPTY_RESPONSE', `${label} answered HTTP ${response.status} without a body.`)
    const mapper = new ChunkMapper(label, provider, apiKey, sent)
    if (/application\/json/i.test(response.headers.get('content-type') ?? '')) {
      yield* chunksFromJson(await readBodyText(response, MAX_JSON_BODY_BYTES, `The JSON answer of ${labelInSentence(label)}`), mapper)
      return
    }
    yield* chunksFromSse(response.body, mapper)
  }

  async function* run(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelChunk> {
    // An own controller: the turn's abort, a deadline and an early stop all close the connection.
    const controller = new AbortController()
    const onAbort = (): void => controller.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    try {
      if (signal.aborted) throw signal.reason
      const body = buildBody(request, settings)
      const model = typeof body.model === 'string' ? body.model : undefined // the request's own, if it names one
      yield* withContentDeadline(exchange(JSON.stringify(body), sentMaxTokens(body, settings.maxTokensField), model, controller.signal), deadlines, label)
    } catch (error) {
      throw redactSecret(classify(error, signal, label, where), apiKey)
    } finally {
      signal.removeEventListener('abort', onAbort)
      controller.abort()
    }
  }

  return Object.freeze({
    name: 'openai' as const,
    model: checked.model,
    baseURL: shownBaseURL(root, 'redact'),
    provider,
    // Lazy: `run` is a generator, so no request is made before the stream is iterated.
    stream: (request: ModelRequest, callOptions: ModelCallOptions): AsyncIterable<ModelChunk> =>
      run(request, callOptions?.signal ?? new AbortController().signal),
  })
}

/** The reasoning tag of a server, from its URL. */
function providerFor(url: URL): string {
  const host = url.hostname.toLowerCase()
  if (host === 'deepseek.com' || host.endsWith('.deepseek.com')) return 'deepseek'
  if (host === 'api.openai.com') return 'openai'
  if (host === 'openrouter.ai' || host.endsWith('.openrouter.ai')) return 'openrouter'
  if (host === 'api.x.ai') return 'xai'
  return `openai-compatible:${url.host}`
}

/**
 * What a 401 or 403 says to do: with a key sent, the variable it came from (never its value);
 * without one (another server than api.openai.com, no `apiKeyEnv`), that none was sent and how to
 * give one — unless `headers` carries the authorization, whose value then was refused.
 */
function authHintFor(options: OpenAIOptions, keySent: boolean, where: string): string {
  if (keySent) return ` (check that the environment variable ${options.apiKeyEnv ?? DEFAULT_API_KEY_ENV}${options.apiKeyEnv === undefined ? '' : ', named by apiKeyEnv,'} holds a valid key for ${where})`
  if (Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) return ` (no key from apiKeyEnv was sent: check the authorization given in the option headers for ${where})`
  return ` (no key was sent: ${DEFAULT_API_KEY_ENV} goes to api.openai.com only. If ${where} needs a key, name the environment variable that holds it with the option apiKeyEnv, e.g. "apiKeyEnv": "VLLM_API_KEY")`
}

const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY'

/**
 * The key: from `apiKeyEnv` when given (unset or empty is an error naming the variable);
 * otherwise `OPENAI_API_KEY`, but only for api.openai.com, so that an OpenAI key is never sent
 * to another server by default; other servers get no key.
 */
function readApiKey(options: OpenAIOptions, root: URL): string | undefined {
  // The key would cross the network in clear text before api.openai.com's redirect to https
  // (which Bosun does not follow anyway): refuse before anything is sent.
  if (root.hostname.toLowerCase() === 'api.openai.com' && root.protocol !== 'https:') {
    throw new BosunError(
      ErrorCodes.CONFIG_INVALID,
      `openai(): baseURL ${root.protocol}//api.openai.com would send the API key unencrypted: write https://api.openai.com/v1 (or leave baseURL out).`,
      { details: { option: 'baseURL' } },
    )
  }
  if (options.apiKeyEnv !== undefined) {
    const value = process.env[options.apiKeyEnv]?.trim()
    if (!value) {
      throw new BosunError(
        ErrorCodes.CONFIG_INVALID,
        `openai(): the environment variable ${options.apiKeyEnv} named by apiKeyEnv is not set. Set it to the API key (export ${options.apiKeyEnv}=…), or leave apiKeyEnv out for a server that needs no key (Ollama, vLLM).`,
        { details: { option: 'apiKeyEnv', variable: options.apiKeyEnv } },
      )
    }
    return sendable(value, options.apiKeyEnv)
  }
  if (root.hostname.toLowerCase() !== 'api.openai.com') return undefined
  const value = process.env.OPENAI_API_KEY?.trim()
  if (!value) {
    throw new BosunError(
      ErrorCodes.CONFIG_INVALID,
      'openai(): OpenAI needs an API key: set OPENAI_API_KEY (export OPENAI_API_KEY=…) or name another variable with apiKeyEnv.',
      { details: { option: 'apiKeyEnv', variable: 'OPENAI_API_KEY' } },
    )
  }
  return sendable(value, DEFAULT_API_KEY_ENV)
}

/**
 * The key, if `fetch` can send it. A line break or a character beyond Latin-1 inside it (a
 * typographic quote pasted with it) would fail every request before anything is sent, with an
 * error that reads like a network failure and is retried: said now, naming the variable, never
 * quoting the key (Headers' own error may).
 */
function sendable(key: string, variable: string): string {
  try {
    new Headers([['authorization', `Bearer ${key}`]])
  } catch {
    throw new BosunError(
      ErrorCodes.CONFIG_INVALID,
      `openai(): the key in the environment variable ${variable} cannot be sent in an HTTP header: it has a line break or a character such as a typographic quote inside. Set ${variable} to the key alone, copied again.`,
      { details: { option: 'apiKeyEnv', variable } },
    )
  }
  return key
}
