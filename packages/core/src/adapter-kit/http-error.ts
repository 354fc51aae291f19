import { ModelError, type ModelErrorCode } from '../model.js'
import { MAX_ERROR_BODY_BYTES, readBodyText } from './read-body.js'
import { excerpt, maskSecret } from './redact.js'
import { retryAfterMs } from './retry-after.js'

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
 * The longest provider message an error quotes (characters, after the key is masked). A provider
 * can answer with a message of megabytes (an echo of the request); the error goes into `turn/end`,
 * every `llm/retry`, the session file and the terminal, so it is cut, `…` marking the cut.
 */
export const MAX_PROVIDER_MESSAGE = 1_000

/**
 * Maps a failed HTTP response of a provider to a typed {@link ModelError}: the code from the
 * status (and the body, for context-window errors that arrive as 400), the provider's own message,
 * `retryAfterMs` from the headers (the rate-limit reset headers only for a 429). An exhausted quota
 * (OpenAI's 429 `insufficient_quota`) is a `RATE_LIMIT` that is not retryable: waiting does not
 * refill a billing quota. The message never includes request headers; `secret` (the adapter's
 * key) is masked in the body **before** any excerpt is cut, so a provider echoing the key cannot
 * leave a piece of it at the cut.
 */
export function modelErrorFromResponse(provider: string, status: number, headers: Headers, text: string, { secret, authHint }: ResponseErrorOptions = {}): ModelError {
  const body = maskSecret(text, secret)
  let code: ModelErrorCode = ModelError.codeForStatus(status)
  const detail = providerMessage(body)
  if ((code === 'INVALID_REQUEST' || status === 413) && CONTEXT_WINDOW_MESSAGE.test(`${detail} ${body}`)) code = 'CONTEXT_WINDOW_EXCEEDED'
  const wait = retryAfterMs(headers, Date.now(), { resetHeaders: status === 429 })
  const quota = status === 429 && QUOTA.test(body)
  const said = quota ? QUOTA_HINT : code === 'AUTH' && authHint !== undefined ? authHint : hint(code)
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
  const body = await readBodyText(response, MAX_ERROR_BODY_BYTES, `The error body of HTTP ${response.status} from ${provider}`)
  return modelErrorFromResponse(provider, response.status, response.headers, body, options)
}

/**
 * The `error.message` of a JSON error body (OpenAI and Anthropic shapes), cut at
 * {@link MAX_PROVIDER_MESSAGE} characters, else a trimmed excerpt of the body. Mask the key in
 * `body` first (as {@link modelErrorFromResponse} does).
 */
export function providerMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof parsed.error === 'string') return excerpt(parsed.error, MAX_PROVIDER_MESSAGE)
    if (typeof parsed.error?.message === 'string') return excerpt(parsed.error.message, MAX_PROVIDER_MESSAGE)
    if (typeof parsed.message === 'string') return excerpt(parsed.message, MAX_PROVIDER_MESSAGE)
  } catch {
    // not JSON: fall through to the excerpt
  }
  return excerpt(body, 300)
}

function hint(code: ModelErrorCode): string {
  switch (code) {
    case 'AUTH':
      return ' (check that the environment variable named by apiKeyEnv holds a valid key)'
    case 'CONTEXT_WINDOW_EXCEEDED':
      return ' (the conversation is longer than the model accepts: compact it or start a new session)'
    default:
      return ''
  }
}
