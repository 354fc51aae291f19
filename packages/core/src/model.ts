import { BosunError } from './errors.js'
import { refusalCode } from './adapter-kit/refusal.js'
import type { JsonValue } from './json.js'
import type { AssistantBlock, ContentBlock } from './session/messages.js'

/** One message of the model-visible history (the "surface"). */
export type ModelMessage =
  | { readonly role: 'user'; readonly id: string; readonly content: readonly ContentBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly AssistantBlock[] }
  | {
      readonly role: 'tool'
      readonly callId: string
      readonly name: string
      readonly content: readonly ContentBlock[]
      readonly isError?: boolean
    }

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string
  description: string
  /** JSON Schema of the arguments object. */
  parameters: { [key: string]: JsonValue }
}

/**
 * What an adapter is asked to answer. Built by the loop, then rewritten by the `prepareCall`
 * waterfall.
 *
 * `messages` is the live, append-only history array, shared rather than copied so that the
 * core's cost per step does not grow with the history: treat it as read-only and valid for
 * the duration of the call; copy it (or build a new array, as compaction does) to keep it.
 */
export interface ModelRequest {
  system: string
  messages: readonly ModelMessage[]
  tools: readonly ToolSpec[]
  /** Overrides the adapter's configured model name, if the adapter supports it. */
  model?: string
  /** Provider parameters (temperature, maxTokens…). JSON, logged in `request/header`. */
  params: { [key: string]: JsonValue }
}

export interface ModelUsage {
  inputTokens?: number
  outputTokens?: number
  reasoningTokens?: number
  cachedInputTokens?: number
}

/** Why the model stopped, as an adapter reports it in its `finish` chunk. */
export type ModelFinishReason = 'stop' | 'tool-calls' | 'max-tokens' | 'content-filter'

/** How a step ended: the model's finish reason, or `error` / `aborted`. */
export type StepFinish = ModelFinishReason | 'error' | 'aborted'

/**
 * The parts of a model stream. Text and reasoning come as deltas; a tool call arrives as deltas
 * keyed by `index` (id and name in the first, arguments split across many).
 */
export type ModelChunk =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string; signature?: string; provider?: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta?: string }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'finish'; reason: ModelFinishReason }

export interface ModelCallOptions {
  /** Aborted when the turn is aborted; adapters pass it to their HTTP request. */
  signal: AbortSignal
}

/**
 * A provider adapter. `stream` returns the chunks of one model response; failures are thrown
 * (from the call or from the iteration) as {@link ModelError}.
 */
export interface ModelAdapter {
  /** Short adapter name, e.g. `scripted`, `openai`; logged in `request/header`. */
  readonly name: string
  /** The configured model, if any; logged in `request/header`. */
  readonly model?: string
  stream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelChunk>
}

export const ModelErrorCodes = [
  'AUTH',
  'RATE_LIMIT',
  'CONTEXT_WINDOW_EXCEEDED',
  'INVALID_REQUEST',
  'SERVER',
  'TIMEOUT',
  'TRANSPORT',
  'MALFORMED_RESPONSE',
  'EMPTY_RESPONSE',
  'ABORTED',
  /** The provider answered with a redirect; adapters never follow one with credentials. */
  'PROVIDER_REDIRECT',
  /** A non-streamed body (an error body, a JSON answer) was over the adapter's read cap. */
  'RESPONSE_TOO_LARGE',
] as const

export type ModelErrorCode = (typeof ModelErrorCodes)[number]

export interface ModelErrorOptions {
  status?: number
  retryable?: boolean
  retryAfterMs?: number
  cause?: unknown
}

/** A failed model request, with what a retry policy needs to decide. */
export class ModelError extends BosunError {
  readonly status?: number
  readonly retryable: boolean
  readonly retryAfterMs?: number

  constructor(code: ModelErrorCode, message: string, options: ModelErrorOptions = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause })
    this.name = 'ModelError'
    if (options.status !== undefined) this.status = options.status
    this.retryable = options.retryable ?? defaultRetryable(code)
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs
  }

  /**
   * Maps an HTTP status to the matching error code, reading the provider's words (`message`: its
   * message and body) where the status alone does not say: a 4xx whose words say the prompt is too
   * long (`CONTEXT_WINDOW_MESSAGE`) is `CONTEXT_WINDOW_EXCEEDED`; a 413 is that only when they say
   * so, `RATE_LIMIT` when they speak of a rate limit (Groq's tokens-per-minute 413) — but
   * `CONTEXT_WINDOW_EXCEEDED` again when they say the request alone is over that limit ("Limit N,
   * Requested M", M > N: waiting cannot help, a smaller request can) — and otherwise
   * `INVALID_REQUEST` — a limit on the request's bytes, such as a proxy's. Without `message`, a 413
   * is `INVALID_REQUEST` (it was `CONTEXT_WINDOW_EXCEEDED` before, whatever it said).
   */
  static codeForStatus(status: number, message?: string): ModelErrorCode {
    if (status === 401 || status === 403) return 'AUTH'
    if (status === 429) return 'RATE_LIMIT'
    if (status === 408) return 'TIMEOUT'
    if (status >= 500) return 'SERVER'
    return status >= 400 && message !== undefined ? refusalCode(status, message) : 'INVALID_REQUEST'
  }
}

function defaultRetryable(code: ModelErrorCode): boolean {
  return ['RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT', 'EMPTY_RESPONSE'].includes(code)
}
