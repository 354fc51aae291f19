import { excerpt, MAX_PROVIDER_MESSAGE, maxTokensRefusal, ModelError, type SentMaxTokens } from '@bosun/core'
import type { ModelChunk, ModelErrorCode, ModelFinishReason, ModelUsage } from '@bosun/core'
import { tooLargeCode, tooLargeHintOf } from './too-large.js'

/** One event of the Messages stream: the parsed `data:` payload (its `type` equals the SSE event name). */
export interface AnthropicEvent {
  type: string
  [key: string]: unknown
}

type OpenBlock =
  | { kind: 'text' | 'reasoning' | 'other' }
  | { kind: 'tool'; index: number; input: unknown; argumentsSeen: boolean }

const STOP_REASONS: Readonly<Record<string, ModelFinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'max-tokens',
  model_context_window_exceeded: 'max-tokens',
  refusal: 'content-filter',
}

/** In-stream `error` event types: the code, and the HTTP status the same error has as a response. */
const STREAM_ERRORS: Readonly<Record<string, [ModelErrorCode, number]>> = {
  overloaded_error: ['SERVER', 529],
  api_error: ['SERVER', 500],
  rate_limit_error: ['RATE_LIMIT', 429],
  authentication_error: ['AUTH', 401],
  permission_error: ['AUTH', 403],
  invalid_request_error: ['INVALID_REQUEST', 400],
  not_found_error: ['INVALID_REQUEST', 404],
  // A byte limit (large images): INVALID_REQUEST unless its message counts tokens (too-large.ts).
  request_too_large: ['INVALID_REQUEST', 413],
  timeout_error: ['TIMEOUT', 504],
}

/**
 * Turns Messages stream events into Bosun chunks. Content blocks are keyed by the stream's
 * `index`; tool calls are numbered from 0 in the order they start. Usage is sent when the
 * `message_delta` gives the output tokens (or at the end if none came), the finish at
 * `message_stop` (or at the end of a stream that gave its `stop_reason`), so a stream cut short of
 * its stop reason never looks complete. Unknown event, block and delta
 * types are ignored (Anthropic adds new ones); a payload of the wrong shape is a
 * `MALFORMED_RESPONSE`.
 */
export class MessageStreamDecoder {
  readonly #blocks = new Map<number, OpenBlock>()
  #tools = 0
  /** The block of the last chunk sent, when that chunk was a reasoning delta. */
  #reasoningAt: number | undefined
  #usage: ModelUsage = {}
  #finish: ModelFinishReason = 'stop'
  /** `message_delta` gave the `stop_reason`: the content is complete, whether or not `message_stop` follows. */
  #stopped = false
  #usageSent = false
  #started = false
  #done = false
  /** Some text of this message was sent: a refusal's explanation is kept a blank line apart from it. */
  #wroteText = false

  /**
   * `label`: the server as messages name it (`Anthropic`, `The server at <host>`); `sent`: the
   * request's max_tokens, which an in-stream `request_too_large` is typed by.
   */
  constructor(
    private readonly label: string,
    private readonly sent?: SentMaxTokens,
  ) {}

  /** `message_stop` arrived: the response is complete. */
  get done(): boolean {
    return this.#done
  }

  /** Folds one event in and returns the chunks it yields (often none). Throws a ModelError. */
  push(event: AnthropicEvent): ModelChunk[] {
    try {
      return this.#fold(event)
    } catch (error) {
      if (!(error instanceof MalformedEvent)) throw error
      throw new ModelError('MALFORMED_RESPONSE', `${this.label} sent a malformed stream event: ${error.problem}.`)
    }
  }

  #fold(event: AnthropicEvent): ModelChunk[] {
    switch (event.type) {
      case 'message_start': {
        this.#started = true
        const message = object(event.message, 'message_start.message')
        this.#readUsage(message.usage)
        return []
      }
      case 'content_block_start':
        return this.#start(index(event.index), object(event.content_block, 'content_block_start.content_block'))
      case 'content_block_delta':
        return this.#delta(index(event.index), object(event.delta, 'content_block_delta.delta'))
      case 'content_block_stop':
        return this.#stop(index(event.index))
      case 'message_delta': {
        const delta = object(event.delta, 'message_delta.delta')
        const out: ModelChunk[] = []
        if (delta.stop_reason != null) {
          const reason = string(delta.stop_reason, 'stop_reason')
          this.#finish = STOP_REASONS[reason] ?? 'stop'
          this.#stopped = true
          if (reason === 'refusal') this.#explain(out, delta.stop_details)
        }
        this.#readUsage(event.usage)
        out.push(...this.#usageChunk())
        return out
      }
      case 'message_stop':
        this.#done = true
        return this.#finishChunks()
      case 'error':
        throw streamError(this.label, event.error, 'in the stream', this.sent)
      default:
        return [] // ping, and event types added after this adapter was written
    }
  }

  /**
   * The server closed the stream: the closing chunks, if the response is complete. It is once
   * `message_delta` gave the `stop_reason` (all content blocks came before it), with or without
   * `message_stop` — as the openai adapter takes a `finish_reason` without `[DONE]`, and AI SDK
   * providers a stop reason without the end of the stream. Closed before that, the answer may be
   * cut short: `TRANSPORT` (retryable), never a complete-looking message.
   */
  end(): ModelChunk[] {
    if (this.#done) return []
    if (this.#stopped) {
      this.#done = true
      return this.#finishChunks()
    }
    if (!this.#started) throw new ModelError('EMPTY_RESPONSE', `${this.label} closed the stream without sending a message.`)
    throw new ModelError('TRANSPORT', `${this.label} closed the stream before the message was complete (no stop_reason): the response may be incomplete.`)
  }

  #finishChunks(): ModelChunk[] {
    return [...(this.#usageSent ? [] : this.#usageChunk()), { type: 'finish', reason: this.#finish }]
  }

  #start(at: number, block: Record<string, unknown>): ModelChunk[] {
    if (this.#blocks.has(at)) malformed(`content block ${at} started twice`)
    const out: ModelChunk[] = []
    switch (block.type) {
      case 'text': {
        this.#blocks.set(at, { kind: 'text' })
        const text = string(block.text ?? '', 'text block text')
        if (text !== '') this.#emit(out, at, { type: 'text-delta', text })
        break
      }
      case 'thinking': {
        this.#blocks.set(at, { kind: 'reasoning' })
        const text = string(block.thinking ?? '', 'thinking block thinking')
        const signature = string(block.signature ?? '', 'thinking block signature')
        if (text !== '' || signature !== '') this.#emit(out, at, reasoning(text, signature))
        break
      }
      case 'redacted_thinking':
        // Kept as a reasoning block with empty text and the opaque data as its signature.
        this.#blocks.set(at, { kind: 'reasoning' })
        this.#emit(out, at, reasoning('', string(block.data, 'redacted_thinking data')))
        break
      case 'tool_use': {
        const tool = { kind: 'tool' as const, index: this.#tools++, input: block.input, argumentsSeen: false }
        this.#blocks.set(at, tool)
        this.#emit(out, at, { type: 'tool-call-delta', index: tool.index, id: string(block.id, 'tool_use id'), name: string(block.name, 'tool_use name') })
        break
      }
      default:
        this.#blocks.set(at, { kind: 'other' }) // server tools, citations…: not part of Bosun's message model
    }
    return out
  }

  #delta(at: number, delta: Record<string, unknown>): ModelChunk[] {
    const block = this.#blocks.get(at) ?? malformed(`a delta for content block ${at}, which was never started`)
    const out: ModelChunk[] = []
    if (block.kind === 'other') return out
    switch (delta.type) {
      case 'text_delta': {
        if (block.kind !== 'text') malformed(`a text_delta for a ${block.kind} block`)
        const text = string(delta.text, 'text_delta text')
        if (text !== '') this.#emit(out, at, { type: 'text-delta', text })
        break
      }
      case 'thinking_delta': {
        if (block.kind !== 'reasoning') malformed(`a thinking_delta for a ${block.kind} block`)
        const text = string(delta.thinking, 'thinking_delta thinking')
        if (text !== '') this.#emit(out, at, reasoning(text, ''))
        break
      }
      case 'signature_delta':
        if (block.kind !== 'reasoning') malformed(`a signature_delta for a ${block.kind} block`)
        this.#emit(out, at, reasoning('', string(delta.signature, 'signature_delta signature')))
        break
      case 'input_json_delta': {
        if (block.kind !== 'tool') malformed(`an input_json_delta for a ${block.kind} block`)
        const argumentsDelta = string(delta.partial_json, 'input_json_delta partial_json')
        if (argumentsDelta === '') break
        block.argumentsSeen = true
        this.#emit(out, at, { type: 'tool-call-delta', index: block.index, argumentsDelta })
        break
      }
      default:
        break // citations and delta types added later
    }
    return out
  }

  /**
   * Appends a content chunk of block `at`. The loop joins consecutive reasoning deltas into one
   * block, but two Anthropic reasoning blocks in a row (thinking, then redacted_thinking) each
   * carry their own signature: an empty text delta between them keeps them apart.
   */
  #emit(out: ModelChunk[], at: number, chunk: ModelChunk): void {
    if (chunk.type === 'reasoning-delta' && this.#reasoningAt !== undefined && this.#reasoningAt !== at) {
      out.push({ type: 'text-delta', text: '' })
    }
    this.#reasoningAt = chunk.type === 'reasoning-delta' ? at : undefined
    if (chunk.type === 'text-delta' && chunk.text !== '') this.#wroteText = true
    out.push(chunk)
  }

  /**
   * A refusal's `stop_details.explanation` (why Anthropic's classifiers stopped the answer, e.g.
   * "This request triggered restrictions on violative cyber content…") is the only words the user
   * gets for it: sent as text, as the OpenAI adapter sends a `refusal` delta, so it is in the
   * assistant message and printed with the answer; a blank line keeps it apart from any text the
   * model wrote — also with a tool call between them (the loop drops a content-filter step's calls,
   * and the two text blocks print and read as one text). The details are informative and newer
   * than the rest of the format: any other shape is left out, not a malformed stream.
   */
  #explain(out: ModelChunk[], details: unknown): void {
    const explanation = typeof details === 'object' && details !== null ? (details as Record<string, unknown>).explanation : undefined
    const text = typeof explanation === 'string' ? explanation.trim() : ''
    if (text === '') return
    this.#reasoningAt = undefined
    out.push({ type: 'text-delta', text: this.#wroteText ? `\n\n${text}` : text })
    this.#wroteText = true
  }

  /** A tool_use whose input never streamed (a call without arguments) gets its start `input`, `{}`. */
  #stop(at: number): ModelChunk[] {
    const block = this.#blocks.get(at) ?? malformed(`content block ${at} stopped but was never started`)
    if (block.kind !== 'tool' || block.argumentsSeen) return []
    const input = typeof block.input === 'object' && block.input !== null ? block.input : {}
    const out: ModelChunk[] = []
    this.#emit(out, at, { type: 'tool-call-delta', index: block.index, argumentsDelta: JSON.stringify(input) })
    return out
  }

  #usageChunk(): ModelChunk[] {
    if (Object.keys(this.#usage).length === 0) return []
    this.#usageSent = true
    return [{ type: 'usage', usage: { ...this.#usage } }]
  }

  /** The prompt's token counts as last reported (`message_start`, then `message_delta` may repeat some). */
  #prompt: { input?: number; cacheRead?: number; cacheWrite?: number } = {}

  /**
   * Anthropic's `input_tokens` leaves out cached tokens; Bosun's `inputTokens` counts the whole
   * prompt (as OpenAI's does), so cache reads and writes are added in. A field a later event leaves
   * out keeps its earlier value, so the sum never drops the cache part (and `cachedInputTokens`
   * never exceeds `inputTokens`).
   */
  #readUsage(value: unknown): void {
    if (value == null) return
    const usage = object(value, 'usage')
    const input = count(usage.input_tokens)
    const cacheRead = count(usage.cache_read_input_tokens)
    const cacheWrite = count(usage.cache_creation_input_tokens)
    const output = count(usage.output_tokens)
    if (input !== undefined) this.#prompt.input = input
    if (cacheRead !== undefined) this.#prompt.cacheRead = cacheRead
    if (cacheWrite !== undefined) this.#prompt.cacheWrite = cacheWrite
    const prompt = this.#prompt
    if (prompt.input !== undefined || prompt.cacheRead !== undefined || prompt.cacheWrite !== undefined) {
      this.#usage.inputTokens = (prompt.input ?? 0) + (prompt.cacheRead ?? 0) + (prompt.cacheWrite ?? 0)
    }
    if (prompt.cacheRead !== undefined) this.#usage.cachedInputTokens = prompt.cacheRead
    if (output !== undefined) this.#usage.outputTokens = output
  }
}

function reasoning(text: string, signature: string): ModelChunk {
  return signature === ''
    ? { type: 'reasoning-delta', text, provider: 'anthropic' }
    : { type: 'reasoning-delta', text, signature, provider: 'anthropic' }
}

/**
 * The typed error of an Anthropic `{type: 'error', error: {type, message}}` payload (in a stream, or
 * a 200 JSON body) from the server `label` names; `sent`, the request's max_tokens, types a
 * `request_too_large` as a 413 response.
 */
export function streamError(label: string, value: unknown, where = 'in the stream', sent?: SentMaxTokens): ModelError {
  const error = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  const type = typeof error.type === 'string' ? error.type : 'unknown_error'
  // Cut: a message can be megabytes, and the error goes into the log and the terminal.
  const detail = typeof error.message === 'string' ? `: ${excerpt(error.message, MAX_PROVIDER_MESSAGE)}` : ''
  const [base, status] = STREAM_ERRORS[type] ?? ['SERVER', 500]
  // A request_too_large is typed by its words as a 413 response is; other refusals count tokens or not.
  const overBudget = type === 'request_too_large' ? maxTokensRefusal(413, detail, sent) : undefined
  const code = overBudget?.code ?? (type === 'request_too_large' ? tooLargeCode(detail) : base === 'INVALID_REQUEST' ? ModelError.codeForStatus(400, detail) : base)
  const hint = overBudget?.hint ?? (type === 'request_too_large' && code === 'INVALID_REQUEST' ? tooLargeHintOf(label) : '')
  // The HTTP status was 200: the equivalent status is kept in the message only.
  return new ModelError(code, `${label} reported ${type} ${where}${detail} (as HTTP ${status})${hint}.`)
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

function index(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) malformed(`a content block index ${JSON.stringify(value)}`)
  return value
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) malformed(`${what} is not an object`)
  return value as Record<string, unknown>
}

function string(value: unknown, what: string): string {
  if (typeof value !== 'string') malformed(`${what} is not a string`)
  return value
}

function malformed(problem: string): never {
  throw new MalformedEvent(problem)
}

/**
 * A payload of the wrong shape, thrown by the checks above and never out of the decoder: `push`
 * makes it the `MALFORMED_RESPONSE` naming the server (which these module-level checks do not know).
 */
class MalformedEvent extends Error {
  constructor(readonly problem: string) {
    super(problem)
  }
}
