import { errorFromResponse, labelInSentence, maskSecret, MAX_ERROR_BODY_BYTES, ModelError, modelErrorFromResponse, providerMessage, readBodyText, tooLargeHint } from '@bosun/core'
import type { ModelErrorCode, SentMaxTokens } from '@bosun/core'

/**
 * What a refusal of the request's size says to do. Anthropic's `request_too_large` (HTTP 413) is a
 * limit on the request's bytes — large images or PDFs — not on its tokens: compaction summarises
 * the text and keeps the attachments, so it would not cure it (hence not CONTEXT_WINDOW_EXCEEDED).
 */
export const TOO_LARGE_HINT = ' (the request has more bytes than Anthropic accepts, most often from large images or documents: send fewer or smaller ones; compacting the conversation would not help, as it keeps them)'

/**
 * The byte-limit hint for the server `label` names: Anthropic's own ({@link TOO_LARGE_HINT}), or for
 * another server (a proxy, a gateway) the kit's, which says its limit — or a proxy's — may be raised.
 */
export const tooLargeHintOf = (label: string): string => (label === 'Anthropic' ? TOO_LARGE_HINT : tooLargeHint('INVALID_REQUEST'))

/**
 * The code of a too-large refusal, by its words — the kit's rule (`ModelError.codeForStatus`), as
 * for any 413: `CONTEXT_WINDOW_EXCEEDED` when they count tokens, `RATE_LIMIT` when they speak of a
 * rate limit, otherwise `INVALID_REQUEST` (a byte limit).
 */
export const tooLargeCode = (text: string): ModelErrorCode => ModelError.codeForStatus(413, text)

/**
 * The request's `max_tokens` as sent, named in a refusal with the thinking budget it holds, if any
 * (reasoningEffort: it may be what to lower). A 413 over a per-minute token limit that it alone
 * reaches is `INVALID_REQUEST` saying to lower maxTokens (the kit's `maxTokensRefusal`), not a context window.
 */
export const sentMaxTokens = (body: { max_tokens: number; thinking?: { budget_tokens: number } }): SentMaxTokens => ({
  maxTokens: body.max_tokens,
  maxTokensField: body.thinking === undefined ? 'max_tokens' : `max_tokens, a thinking budget of ${body.thinking.budget_tokens} (reasoningEffort) included`,
})

/**
 * The typed error of a failed response. A 413 is decided by its message: one counting tokens stays
 * `CONTEXT_WINDOW_EXCEEDED` (compaction helps), one speaking of a rate limit is `RATE_LIMIT`; any
 * other — Anthropic's "exceeds the maximum allowed number of bytes", a proxy's "413 Request Entity
 * Too Large" page — is an `INVALID_REQUEST` saying so ({@link TOO_LARGE_HINT}); so is one over a
 * per-minute limit that the request's `max_tokens` alone reaches, saying to lower maxTokens. The key
 * is masked before anything is quoted. `label`: the server as messages name it.
 */
export async function responseError(label: string, response: Response, options: { secret?: string; authHint: string } & Partial<SentMaxTokens>): Promise<ModelError> {
  if (response.status !== 413) return errorFromResponse(label, response, options)
  const text = await readBodyText(response, MAX_ERROR_BODY_BYTES, `The error body of HTTP 413 from ${labelInSentence(label)}`)
  const body = maskSecret(text, options.secret)
  const detail = providerMessage(body)
  if (tooLargeCode(`${detail} ${body}`) !== 'INVALID_REQUEST') return modelErrorFromResponse(label, 413, response.headers, text, options)
  return new ModelError('INVALID_REQUEST', `${label} answered HTTP 413${detail ? `: ${detail}` : ''}${tooLargeHintOf(label)}`, { status: 413 })
}
