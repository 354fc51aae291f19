import { messageText, ModelError } from '@bosun/core'
import type {
  JsonValue, ModelAdapter, ModelCallOptions, ModelChunk, ModelErrorOptions, ModelMessage, ModelRequest,
} from '@bosun/core'
import type { ScriptedEntry, ScriptedError, ScriptedOptions, ScriptedResponse } from './options.js'
import { validateEntry, validateOptions, validateResponse } from './validate.js'

/** What a recording adapter (`record: true`) kept of one request. */
export interface ScriptedRecord {
  system: string
  /** A shallow copy of `request.messages` at the time of the call. */
  messages: ModelMessage[]
  /** The names of the tools offered. */
  tools: string[]
  /** A shallow copy of `request.params`. */
  params: { [key: string]: JsonValue }
  /** `request.model`, when given. */
  model?: string
}

/** The scripted model adapter: a {@link ModelAdapter} that plays back scripted responses. */
export interface ScriptedAdapter extends ModelAdapter {
  readonly name: 'scripted'
  /** How many times `stream()` was called (echoes included). */
  readonly requests: number
  /** How many scripted responses are left before the adapter starts echoing. */
  readonly remaining: number
  /** One entry per request when created with `record: true`; otherwise always empty. */
  readonly recorded: readonly ScriptedRecord[]
  /** Appends responses to the script (validated like those given to `scripted()`). */
  push(...responses: ScriptedEntry[]): this
}

/**
 * Creates a deterministic, offline model adapter. Each `stream()` call consumes the next
 * response, in order; with none left it answers `echo: <text of the last user message>`.
 * Invalid options throw a `BosunError` with code `INVALID_ARGUMENT` naming each field, in the
 * words a config file gets (they are checked against `scriptedOptionsSchema`).
 *
 * @example
 * const model = scripted({ responses: [
 *   { text: 'hello', chunkSize: 2, delayMs: 0 },
 *   { toolCalls: [{ name: 'read', args: { path: 'a.txt' } }] },
 *   { error: { status: 429, retryAfterMs: 10 } },
 *   { reasoning: 'thinking…', text: 'done', finish: 'max-tokens' },
 * ] })
 * for await (const chunk of model.stream(request, { signal })) console.log(chunk)
 * // { type: 'text-delta', text: 'he' }, { … 'll' }, { … 'o' }, { type: 'finish', reason: 'stop' }
 */
export function scripted(options?: ScriptedOptions): ScriptedAdapter {
  return new ScriptedModel(validateOptions(options))
}

class ScriptedModel implements ScriptedAdapter {
  readonly name = 'scripted' as const
  readonly #queue: ScriptedEntry[]
  readonly #recorded: ScriptedRecord[] = []
  readonly #record: boolean
  #head = 0
  #requests = 0

  constructor(options: ScriptedOptions) {
    this.#queue = [...(options.responses ?? [])]
    this.#record = options.record === true
  }

  get requests(): number {
    return this.#requests
  }

  get remaining(): number {
    return this.#queue.length - this.#head
  }

  get recorded(): readonly ScriptedRecord[] {
    return this.#recorded
  }

  push(...responses: ScriptedEntry[]): this {
    const start = this.#queue.length
    responses.forEach((entry, i) => validateEntry(entry, start + i))
    this.#queue.push(...responses)
    return this
  }

  /** Consumes a response now; every failure (a throwing function included) surfaces from the iteration. */
  stream(request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelChunk> {
    const number = ++this.#requests
    if (this.#record) this.#recorded.push(recordOf(request))
    let response: ScriptedResponse
    try {
      response = this.#next(request)
    } catch (error) {
      return failing(error)
    }
    return play(response, number, options?.signal)
  }

  #next(request: ModelRequest): ScriptedResponse {
    if (this.#head >= this.#queue.length) return echo(request)
    const index = this.#head++
    const entry = this.#queue[index]!
    return typeof entry === 'function' ? validateResponse(entry(request), index) : entry
  }
}

function recordOf(request: ModelRequest): ScriptedRecord {
  const record: ScriptedRecord = {
    system: request.system,
    messages: request.messages.slice(),
    tools: request.tools.map((tool) => tool.name),
    params: { ...request.params },
  }
  if (request.model !== undefined) record.model = request.model
  return record
}

/** `echo: <text>` of the last user message; scans back from the end only (O(1) per step in practice). */
function echo(request: ModelRequest): ScriptedResponse {
  const messages = request.messages
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role === 'user') return { text: `echo: ${messageText(message)}` }
  }
  return { text: 'echo: ' }
}

async function* failing(error: unknown): AsyncGenerator<ModelChunk, void, undefined> {
  throw error
}

async function* play(
  response: ScriptedResponse,
  requestNumber: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelChunk, void, undefined> {
  const delay = response.delayMs ?? 0
  for (const chunk of chunksOf(response, requestNumber)) {
    if (delay > 0) await sleep(delay, signal)
    else if (signal?.aborted) throw aborted(signal)
    yield chunk
  }
  if (response.error) {
    if (delay > 0) await sleep(delay, signal)
    else if (signal?.aborted) throw aborted(signal)
    throw toModelError(response.error)
  }
}

function* chunksOf(response: ScriptedResponse, requestNumber: number): Generator<ModelChunk> {
  const size = response.chunkSize
  if (response.reasoning) for (const text of split(response.reasoning, size)) yield { type: 'reasoning-delta', text }
  if (response.text) for (const text of split(response.text, size)) yield { type: 'text-delta', text }
  const calls = response.toolCalls ?? []
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    yield { type: 'tool-call-delta', index, id: call.id ?? `call_${requestNumber}_${index}`, name: call.name }
    for (const argumentsDelta of split(JSON.stringify(call.args ?? {}), size)) {
      yield { type: 'tool-call-delta', index, argumentsDelta }
    }
  }
  if (response.usage) yield { type: 'usage', usage: { ...response.usage } }
  if (!response.error) yield { type: 'finish', reason: response.finish ?? (calls.length > 0 ? 'tool-calls' : 'stop') }
}

/** Splits `text` into pieces of `size` characters (code points: a surrogate pair is never cut). */
function* split(text: string, size: number | undefined): Generator<string> {
  if (size === undefined || text.length <= size) {
    yield text
    return
  }
  let piece = ''
  let count = 0
  for (const char of text) {
    piece += char
    if (++count === size) {
      yield piece
      piece = ''
      count = 0
    }
  }
  if (piece !== '') yield piece
}

function toModelError(error: ScriptedError): ModelError {
  const code = error.code ?? (error.status !== undefined ? ModelError.codeForStatus(error.status, error.message) : 'SERVER')
  const status = error.status !== undefined ? ` (HTTP ${error.status})` : ''
  const options: ModelErrorOptions = {}
  if (error.status !== undefined) options.status = error.status
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  if (error.retryable !== undefined) options.retryable = error.retryable
  return new ModelError(code, error.message ?? `Scripted model error: ${code}${status}.`, options)
}

function aborted(signal: AbortSignal): ModelError {
  return new ModelError('ABORTED', 'The request was aborted.', { cause: signal.reason })
}

/** Waits `ms`, or rejects with ABORTED as soon as `signal` aborts (the timer is cleared). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal))
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(aborted(signal!))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
