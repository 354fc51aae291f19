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
