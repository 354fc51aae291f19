import { excerpt, labelInSentence, ModelError } from '@bosun/core'
import type { ModelChunk, ModelFinishReason, ModelUsage } from '@bosun/core'
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser'
import { malformed, streamError } from './errors.js'
import type { SentMaxTokens } from '@bosun/core'

/** An SSE line longer than this (no line break in 16 MiB) is a broken stream, not a big chunk. */
const MAX_BUFFER = 16 * 1024 * 1024

/**
 * Chat Completions finish reasons; any other (a server's own, like `eos`) counts as `stop`, except
 * `error` and `abort`, which say the response is not complete (thrown, see `map`).
 */
const FINISH = new Map<string, ModelFinishReason>([
  ['stop', 'stop'],
  ['tool_calls', 'tool-calls'],
  ['function_call', 'tool-calls'],
  ['length', 'max-tokens'],
  ['content_filter', 'content-filter'],
])

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const count = (value: unknown): number | undefined => (Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined)

/**
 * Turns Chat Completions chunk objects into model chunks. Text and reasoning deltas pass
 * through; tool-call deltas are renumbered in order of first appearance (so a server that
 * reuses an index for a new call id, or omits the index, still yields distinct calls); usage
 * and the finish reason are held back and sent last, usage first.
 */
export class ChunkMapper {
  readonly #slots = new Map<number, { index: number; id?: string; named: boolean }>()
  #nextIndex = 0
  #usage: ModelUsage | undefined
  #finish: ModelFinishReason | undefined
  #emitted = false

  /**
   * `secret`: the adapter's key, masked in any excerpt of the server's payloads that goes into an
   * error message before it is cut (a server may echo the key). `sent`: the maximum output tokens
   * the request carried, which an error payload of status 413 is typed by.
   */
  constructor(
    readonly label: string,
    private readonly provider: string,
    private readonly secret?: string,
    private readonly sent?: SentMaxTokens,
  ) {}

  /** One payload's JSON; a payload that is not JSON is `MALFORMED_RESPONSE`, quoting its start. */
  parse(data: string): unknown {
    try {
      return JSON.parse(data)
    } catch {
      throw malformed(this.label, `a chunk is not JSON: ${excerpt(data, 200, this.secret)}`)
    }
  }

  /** The chunks of one parsed payload; throws a typed error for an error payload or a malformed one. */
  *map(payload: unknown): Generator<ModelChunk> {
    if (!isObject(payload)) throw malformed(this.label, `expected a JSON object, got ${excerpt(JSON.stringify(payload) ?? '', 200, this.secret)}`)
    if (payload.error !== undefined && payload.error !== null) throw streamError(this.label, payload.error, this.secret, this.sent)
    if (isObject(payload.usage)) this.#usage = usageOf(payload.usage)
    const choices = payload.choices ?? []
    if (!Array.isArray(choices)) throw malformed(this.label, '"choices" is not an array')
    for (const choice of choices) {
      if (!isObject(choice)) throw malformed(this.label, 'a choice is not an object')
      if (choice.index !== undefined && choice.index !== 0) continue // n > 1: only the first choice is used
      const delta = choice.delta ?? choice.message
      if (delta !== undefined && delta !== null) {
        if (!isObject(delta)) throw malformed(this.label, '"delta" is not an object')
        yield* this.#delta(delta)
      }
      const reason = choice.finish_reason
      // OpenRouter ends a response the upstream provider failed with finish_reason "error" (the
      // error object, when it sends one, is typed before this): never a quiet success.
      if (reason === 'error') throw new ModelError('SERVER', `${this.label} ended the response with finish_reason "error" (the upstream provider failed).`)
      // vLLM ends a request its engine aborted with finish_reason "abort": the answer stopped
      // before it was complete, as a stream cut before its finish reason did (retryable).
      if (reason === 'abort') throw new ModelError('TRANSPORT', `${this.label} ended the response with finish_reason "abort" (the server stopped generating before the response was complete): the response may be incomplete.`)
      if (typeof reason === 'string' && reason !== '') this.#finish = FINISH.get(reason) ?? 'stop'
      else if (reason !== undefined && reason !== null) throw malformed(this.label, '"finish_reason" is not a string')
    }
  }

  /**
   * A 200 body in which no SSE event or comment was found: an HTML page (a captive portal, a
   * baseURL pointing at a web app), plain text… Retrying would get the same page.
   */
  notAStream(head: string): ModelError {
    return malformed(this.label, `the answer is not an event stream (check that baseURL points at the API): ${excerpt(head, 200, this.secret)}`)
  }

  /** The closing chunks (usage, then finish). `complete`: the server sent `[DONE]`. */
  *end(complete: boolean): Generator<ModelChunk> {
    if (!complete && this.#finish === undefined) {
      throw new ModelError('TRANSPORT', `The stream from ${labelInSentence(this.label)} ended before the response was complete (no finish reason, no [DONE]).`)
    }
    if (!this.#emitted && this.#finish === undefined) {
      throw new ModelError('EMPTY_RESPONSE', `${this.label} ended the stream without any content or finish reason.`)
    }
    if (this.#usage !== undefined) yield { type: 'usage', usage: this.#usage }
    if (this.#finish !== undefined) yield { type: 'finish', reason: this.#finish }
  }

  *#delta(delta: Record<string, unknown>): Generator<ModelChunk> {
    // DeepSeek, xAI and vLLM send `reasoning_content`; OpenRouter and newer vLLM `reasoning`.
    const reasoning = this.#text(delta, 'reasoning_content') ?? (typeof delta.reasoning === 'string' ? delta.reasoning : undefined)
    if (reasoning) yield this.#emit({ type: 'reasoning-delta', text: reasoning, provider: this.provider })
    const content = Array.isArray(delta.content) ? partsText(delta.content) : this.#text(delta, 'content')
    if (content) yield this.#emit({ type: 'text-delta', text: content })
    const refusal = this.#text(delta, 'refusal')
    if (refusal) yield this.#emit({ type: 'text-delta', text: refusal })
    const calls = delta.tool_calls
    if (calls === undefined || calls === null) return
    if (!Array.isArray(calls)) throw malformed(this.label, '"tool_calls" is not an array')
    for (let position = 0; position < calls.length; position++) {
      const chunk = this.#toolCall(calls[position], position)
      if (chunk) yield this.#emit(chunk)
    }
  }

  #toolCall(call: unknown, position: number): ModelChunk | undefined {
    if (!isObject(call)) throw malformed(this.label, 'a tool call is not an object')
    if (call.index !== undefined && count(call.index) === undefined) throw malformed(this.label, 'a tool call index is not a non-negative integer')
    const fn = call.function ?? {}
    if (!isObject(fn)) throw malformed(this.label, 'a tool call "function" is not an object')
    const id = this.#optionalString(call.id, 'tool call id')
    const name = this.#optionalString(fn.name, 'tool call name')
    const args = isObject(fn.arguments) ? JSON.stringify(fn.arguments) : this.#optionalString(fn.arguments, 'tool call arguments')
    const key = count(call.index) ?? position
    let slot = this.#slots.get(key)
    if (slot !== undefined && id && slot.id && id !== slot.id) slot = undefined // a new call reusing the index
    if (slot === undefined) {
      slot = { index: this.#nextIndex++, named: false }
      this.#slots.set(key, slot)
    }
    const chunk: Extract<ModelChunk, { type: 'tool-call-delta' }> = { type: 'tool-call-delta', index: slot.index }
    if (id && id !== slot.id) chunk.id = slot.id = id
    // The name comes once; servers that repeat it in every delta must not make "weatherweather".
    if (name && !slot.named) {
      chunk.name = name
      slot.named = true
    }
    if (args) chunk.argumentsDelta = args
    return chunk.id !== undefined || chunk.name !== undefined || chunk.argumentsDelta !== undefined ? chunk : undefined
  }

  #text(delta: Record<string, unknown>, field: string): string | undefined {
    return this.#optionalString(delta[field], `"${field}"`)
  }

  #optionalString(value: unknown, what: string): string | undefined {
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') throw malformed(this.label, `${what} is not a string`)
    return value
  }

  #emit(chunk: ModelChunk): ModelChunk {
    this.#emitted = true
    return chunk
  }
}

/** The text of content parts (`[{ type: 'text', text }]`), as a few servers stream content. */
function partsText(parts: unknown[]): string {
  let text = ''
  for (const part of parts) if (isObject(part) && part.type === 'text' && typeof part.text === 'string') text += part.text
  return text
}

function usageOf(usage: Record<string, unknown>): ModelUsage {
  const out: ModelUsage = {}
  const input = count(usage.prompt_tokens)
  const output = count(usage.completion_tokens)
  const details = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {}
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {}
  const reasoning = count(details.reasoning_tokens)
  const cached = count(promptDetails.cached_tokens) ?? count(usage.prompt_cache_hit_tokens)
  if (input !== undefined) out.inputTokens = input
  if (output !== undefined) out.outputTokens = output
  if (reasoning !== undefined) out.reasoningTokens = reasoning
  if (cached !== undefined) out.cachedInputTokens = cached
  return out
}

/**
 * The model chunks of a server-sent-events body: bytes decoded as UTF-8 (a character split
 * across reads is kept whole), parsed by `eventsource-parser`, each `data:` payload JSON-parsed
 * and mapped, until `data: [DONE]` or the end of the body. Comments and payloads that make no
 * chunk (keep-alives, role-only deltas) yield nothing: they are not progress.
 */
export async function* chunksFromSse(body: ReadableStream<Uint8Array>, mapper: ChunkMapper): AsyncGenerator<ModelChunk> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const events: EventSourceMessage[] = []
  let parseError: ParseError | undefined
  // Until the parser finds an event or a comment, the body's start is kept: a body with neither
  // is not an event stream, and the error quotes it.
  let sawSse = false
  let head = ''
  const parser = createParser({
    maxBufferSize: MAX_BUFFER,
    onEvent: (event) => {
      sawSse = true
      events.push(event)
    },
    onComment: () => {
      sawSse = true
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') parseError = error
    },
  })
  let complete = false
  try {
    while (!complete) {
      const { done, value } = await reader.read()
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
      if (!sawSse && head.length < 1024) head += text.slice(0, 1024)
      parser.feed(text)
      if (parseError) throw malformed(mapper.label, parseError.message)
      const whole = events.length
      // At the end of the body, a last event the server did not close with a blank line is taken
      // too, if it is complete JSON (a cut-off one leaves the stream incomplete, as before).
      if (done) parser.feed('\n\n')
      for (const [at, event] of events.splice(0).entries()) {
        const data = event.data.trim()
        if (data === '[DONE]') {
          complete = true
          break
        }
        if (data === '') continue
        const parsed = at < whole ? mapper.parse(data) : tryParseJson(data)
        if (parsed === undefined) continue
        yield* mapper.map(parsed)
      }
      if (done) break
    }
    if (!complete && !sawSse && head.trim() !== '') throw mapper.notAStream(head.trim())
    yield* mapper.end(complete)
  } finally {
    // After [DONE] (or a failure) nothing more is read: release the connection.
    void reader.cancel().catch(() => {})
  }
}

/** The chunks of a non-streamed JSON answer (a server that ignored `stream: true`). */
export function* chunksFromJson(text: string, mapper: ChunkMapper): Generator<ModelChunk> {
  yield* mapper.map(mapper.parse(text))
  yield* mapper.end(true)
}

function tryParseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown
  } catch {
    return undefined
  }
}
