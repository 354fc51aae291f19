import { ModelError, type ModelErrorCode } from '../model.js'
import { htmlPageText } from './html-page.js'
import { MAX_ERROR_BODY_BYTES, readBodyText } from './read-body.js'
import { excerpt, maskSecret } from './redact.js'
import { retryAfterMs } from './retry-after.js'
import { labelInSentence } from './server-label.js'
import { maxTokensRefusal, overRateLimitHint } from './refusal.js'

export { CONTEXT_WINDOW_MESSAGE, maxTokensOverLimit, maxTokensOverLimitHint, maxTokensRefusal, type SentMaxTokens } from './refusal.js'
export type { MaxTokensOverLimit } from './refusal.js'

/**
 * The longest provider message an error quotes (characters, after the key is masked). A provider
 * can answer with a message of megabytes (an echo of the request); the error goes into `turn/end`,
 * every `llm/retry`, the session file and the terminal, so it is cut, `…` marking the cut.
 */
export const MAX_PROVIDER_MESSAGE = 1_000

/**
 * Maps a failed HTTP response of a provider to a typed {@link ModelError}: the code from the
 * status and the body's words (`ModelError.codeForStatus`: a context-window error that arrives as
 * 400, a 413 that is a context window, a rate limit or a byte limit), the provider's own message,
 * `retryAfterMs` from the headers (the rate-limit reset headers only for a rate limit). An exhausted quota
 * (OpenAI's 429 `insufficient_quota`) is a `RATE_LIMIT` that is not retryable: waiting does not
 * refill a billing quota. A 413 that the request's `maxTokens` alone causes (at or over the
 * per-minute limit the provider named: `maxTokensOverLimit`) is `INVALID_REQUEST` saying to lower
 * it — compaction could not cure it. The message never includes request headers; `secret` (the adapter's
 * key) is masked in the body **before** any excerpt is cut, so a provider echoing the key cannot
 * leave a piece of it at the cut.
 */
export function modelErrorFromResponse(provider: string, status: number, headers: Headers, text: string, { secret, authHint, maxTokens, maxTokensField }: ResponseErrorOptions = {}): ModelError {
  const body = maskSecret(text, secret)
  const detail = providerMessage(body)
  const overBudget = maxTokensRefusal(status, `${detail} ${body}`, { maxTokens, maxTokensField })
  // One rule for every adapter: a 4xx (a 413 too) is typed by its words as well as its status.
  const code = overBudget?.code ?? ModelError.codeForStatus(status, `${detail} ${body}`)
  // The rate-limit reset headers say when a limit is replenished: read for a rate limit only (a
  // 429, or a 413 that is one), never to delay a retry of a transient 5xx.
  const wait = retryAfterMs(headers, Date.now(), { resetHeaders: code === 'RATE_LIMIT' })
  const quota = status === 429 && QUOTA.test(body)
  const said = quota ? QUOTA_HINT : (overBudget?.hint ?? (code === 'AUTH' && authHint !== undefined ? authHint : hint(code, status, `${detail} ${body}`)))
  return new ModelError(code, `${provider} answered HTTP ${status}${detail ? `: ${detail}` : ''}${said}`, {
    status,
    ...(quota ? { retryable: false } : {}),
    ...(wait === undefined || quota ? {} : { retryAfterMs: wait }),
  })
}

export interface ResponseErrorOptions {
  /** The key that was sent: masked in the body before anything of it is quoted. */
  secret?: string
  /**
   * What a 401/403 says to do, in place of "check that the environment variable named by
   * apiKeyEnv holds a valid key" — e.g. for a request an adapter sent without a key.
   */
  authHint?: string
  /**
   * The request's maximum output tokens, as sent (undefined when none was): a 413 over a per-minute
   * limit that they alone reach is `INVALID_REQUEST` saying to lower maxTokens, not
   * `CONTEXT_WINDOW_EXCEEDED` (see `maxTokensOverLimit`).
   */
  maxTokens?: number
  /** The request field that carried `maxTokens` (`max_tokens`, `max_completion_tokens`), named in that message. */
  maxTokensField?: string
}

/** OpenAI's code (and type) for a 429 that no wait cures: the account's quota or credit is used up. */
const QUOTA = /"(code|type)"\s*:\s*"insufficient_quota"/
const QUOTA_HINT = ' (the account has no quota left: check its plan and billing; retrying will not help)'

/**
 * The typed error of a failed response (`!response.ok`): its body read up to
 * {@link MAX_ERROR_BODY_BYTES} (a larger one is `RESPONSE_TOO_LARGE`), then
 * {@link modelErrorFromResponse}.
 */
export async function errorFromResponse(provider: string, response: Response, options: ResponseErrorOptions = {}): Promise<ModelError> {
  const body = await readBodyText(response, MAX_ERROR_BODY_BYTES, `The error body of HTTP ${response.status} from ${labelInSentence(provider)}`)
  return modelErrorFromResponse(provider, response.status, response.headers, body, options)
}

/**
 * The `error.message` of a JSON error body (OpenAI and Anthropic shapes), cut at
 * {@link MAX_PROVIDER_MESSAGE} characters, else what an HTML page says (its title: `an HTML page:
 * "502 Bad Gateway"`), else a trimmed excerpt of the body. Mask the key in
 * `body` first (as {@link modelErrorFromResponse} does).
 */
export function providerMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof parsed.error === 'string') return excerpt(parsed.error, MAX_PROVIDER_MESSAGE)
    if (typeof parsed.error?.message === 'string') return excerpt(parsed.error.message, MAX_PROVIDER_MESSAGE)
    if (typeof parsed.message === 'string') return excerpt(parsed.message, MAX_PROVIDER_MESSAGE)
  } catch {
    // not JSON: an HTML page by what it says, else the excerpt
  }
  return htmlPageText(body) ?? excerpt(body, 300)
}

/**
 * What a 413 that is neither a context-window nor a rate limit says to do: it limits the request's
 * bytes (a proxy's body limit, large images or documents), so compaction would not cure it.
 */
const TOO_LARGE_HINT = ' (the request has more bytes than the server, or a proxy in front of it, accepts: raise that limit, or send fewer or smaller images and documents; compacting the conversation would not help)'

/**
 * What an HTTP 413 of this code (`ModelError.codeForStatus(413, message)`) says to do, to append to
 * the error's message: a byte limit (`INVALID_REQUEST`), a rate limit on tokens per minute
 * (`RATE_LIMIT`), or — given the provider's words (`message`) — a request that alone is over such
 * a limit (`CONTEXT_WINDOW_EXCEEDED`, Groq's "Limit 12000, Requested 18657"); empty otherwise.
 * Exported so that an adapter whose provider package does the HTTP (the ai-sdk bridge) says it in
 * the same words.
 */
export function tooLargeHint(code: ModelErrorCode, message = ''): string {
  if (code === 'CONTEXT_WINDOW_EXCEEDED') return overRateLimitHint(message)
  if (code === 'INVALID_REQUEST') return TOO_LARGE_HINT
  if (code === 'RATE_LIMIT') return ' (a rate limit on the tokens sent per minute: wait before retrying, or send a shorter request)'
  return ''
}

function hint(code: ModelErrorCode, status: number, text: string): string {
  if (status === 413 && tooLargeHint(code, text) !== '') return tooLargeHint(code, text)
  switch (code) {
    case 'AUTH':
      return ' (check that the environment variable named by apiKeyEnv holds a valid key)'
    case 'CONTEXT_WINDOW_EXCEEDED':
      return ' (the conversation is longer than the model accepts: compact it or start a new session)'
    default:
      return ''
  }
}
