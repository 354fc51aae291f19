// How a provider's 4xx refusal is typed from its words. Kept apart from http-error.ts and free of
// imports so that `ModelError.codeForStatus` (model.ts) can use it without an import cycle.
import type { ModelErrorCode } from '../model.js'

/**
 * How providers say that a request is longer than the model's context, in an error's message:
 * OpenAI (`context_length_exceeded`, "maximum context length"), Anthropic ("prompt is too long"),
 * llama.cpp (`exceed_context_size_error`, "exceeds the available context size"), Gemini ("The input
 * token count … exceeds the maximum number of tokens allowed"), vLLM and others. One list for every
 * adapter: a message matched here is `CONTEXT_WINDOW_EXCEEDED`, which compaction acts on. No
 * unbounded gap (`.*`): it is run over error bodies of up to 1 MB, which an unbounded one rescans
 * from every match of the phrase before it (seconds of a blocked event loop).
 */
export const CONTEXT_WINDOW_MESSAGE =
  /context[_ ]length|context window|maximum context|context[_ ]size|too many tokens|prompt is too long|input is too long|reduce the length|input token count.{0,80}exceeds the maximum/i

/**
 * How a 413 says it is a rate limit, not a size limit: Groq's "Request too large … on tokens per
 * minute (TPM): Limit 6000, Requested 7000" (`rate_limit_exceeded`). Waiting cures it.
 */
export const RATE_LIMIT_MESSAGE = /rate[_ -]?limit|too many requests|(?:tokens|requests) per (?:minute|min|hour|day)\b|\([TR]P[MD]\)/i

/** Groq's counts in a rate-limit refusal: "Limit 12000, Requested 18657" (bounded gaps: see above). */
const LIMIT_REQUESTED = /\bLimit:?\s{0,3}(\d{1,12}),?\s{0,3}Requested:?\s{0,3}(\d{1,12})\b/i

/**
 * The counts of a rate-limit refusal whose request alone is over the limit — Groq's 413 "Request
 * too large … on tokens per minute (TPM): Limit 12000, Requested 18657": the request's tokens (its
 * prompt and its maximum output tokens) exceed what the limit allows in a whole minute, so no wait
 * lets it through. Undefined when the words say no such thing.
 */
export function overRateLimit(text: string): { requested: number; limit: number } | undefined {
  if (!RATE_LIMIT_MESSAGE.test(text)) return undefined
  const counts = LIMIT_REQUESTED.exec(text)
  if (counts === null) return undefined
  const [limit, requested] = [Number(counts[1]), Number(counts[2])]
  return requested > limit ? { requested, limit } : undefined
}

/**
 * What a refusal of {@link overRateLimit} says to do, to append to its message; empty for any
 * other text.
 */
export function overRateLimitHint(text: string): string {
  const over = overRateLimit(text)
  if (over === undefined) return ''
  return ` (this request alone is over the limit: ${over.requested} tokens, its maximum output tokens (maxTokens) included, where ${over.limit} per minute are allowed, so no wait lets it through: lower maxTokens, compact the conversation (the compaction plugin does so on this error; with its contextWindow below ${over.limit} minus maxTokens it compacts before), or use an account tier with a higher limit)`
}

/** A refusal of {@link overRateLimit} that the request's maximum output tokens alone cause. */
export interface MaxTokensOverLimit {
  /** The request's maximum output tokens, as sent. */
  maxTokens: number
  /** The field that carried them (`max_tokens`, `max_completion_tokens`, `maxOutputTokens`…), if known. */
  field?: string
  /** The tokens the provider counted for the request (prompt and maxTokens). */
  requested: number
  /** The per-minute limit it named. */
  limit: number
}

/**
 * Whether an HTTP 413 of {@link overRateLimit} (Groq's "Limit 12000, Requested 18657") is caused by
 * the request's maximum output tokens alone: `maxTokens` (what the adapter sent) at or over the
 * limit. The provider counts them with the prompt, so no prompt is short enough: compacting the
 * conversation (what `CONTEXT_WINDOW_EXCEEDED` makes the compaction plugin do) cannot help, only a
 * lower maxTokens can. Undefined for another status, other words, an unknown or smaller maxTokens.
 */
export function maxTokensOverLimit(status: number, text: string, maxTokens: number | undefined, field?: string): MaxTokensOverLimit | undefined {
  if (status !== 413 || maxTokens === undefined || !Number.isFinite(maxTokens)) return undefined
  const over = overRateLimit(text)
  if (over === undefined || maxTokens < over.limit) return undefined
  return { maxTokens, ...(field === undefined ? {} : { field }), ...over }
}

/** The maximum output tokens a request carried, as sent, and the field that carried them. */
export interface SentMaxTokens {
  maxTokens: number
  /** `max_tokens`, `max_completion_tokens`… (with what else it holds, such as a thinking budget), named in a refusal's message. */
  maxTokensField?: string
}

/**
 * A refusal that the request's maximum output tokens alone cause ({@link maxTokensOverLimit}), typed
 * as every adapter types it: `INVALID_REQUEST`, and {@link maxTokensOverLimitHint} to append to its
 * message. For an HTTP response and for an error in a stream alike (give the status it stands for:
 * Anthropic's in-stream `request_too_large` is a 413). Undefined when it is not one, or when no
 * maximum was sent.
 */
export function maxTokensRefusal(status: number, text: string, sent: Partial<SentMaxTokens> | undefined): { code: 'INVALID_REQUEST'; hint: string } | undefined {
  const over = maxTokensOverLimit(status, text, sent?.maxTokens, sent?.maxTokensField)
  return over === undefined ? undefined : { code: 'INVALID_REQUEST', hint: maxTokensOverLimitHint(over) }
}

/** What a refusal of {@link maxTokensOverLimit} says to do, to append to its message. */
export function maxTokensOverLimitHint({ maxTokens, field, requested, limit }: MaxTokensOverLimit): string {
  const sent = field === undefined ? `${maxTokens}` : `${maxTokens}, sent as ${field}`
  return ` (maxTokens (${sent}) is alone at or over the limit of ${limit} tokens per minute, which counts it with the prompt (${requested} tokens requested): no wait lets the request through, and compacting the conversation would not help, as it does not lower maxTokens: set maxTokens below ${limit}, leaving room for the prompt, or use an account tier with a higher limit)`
}

/**
 * The code of a 4xx refusal that is not AUTH, TIMEOUT or RATE_LIMIT by its status, from its words
 * (`text`: the provider's message and body): `CONTEXT_WINDOW_EXCEEDED` when they say the prompt is
 * too long (any 4xx); for a 413, `RATE_LIMIT` when they speak of a rate limit — but
 * `CONTEXT_WINDOW_EXCEEDED` when they say this request alone is over that limit
 * ({@link overRateLimit}: retrying could never succeed, a shorter request can); otherwise
 * `INVALID_REQUEST` — a 413 that says neither is a limit on the request's bytes (a proxy's body
 * limit, large images), which compacting the conversation would not cure.
 */
export function refusalCode(status: number, text: string): ModelErrorCode {
  if (CONTEXT_WINDOW_MESSAGE.test(text)) return 'CONTEXT_WINDOW_EXCEEDED'
  if (status === 413 && RATE_LIMIT_MESSAGE.test(text)) return overRateLimit(text) === undefined ? 'RATE_LIMIT' : 'CONTEXT_WINDOW_EXCEEDED'
  return 'INVALID_REQUEST'
}
