// Helpers for HTTP adapter packages: typed errors from responses, Retry-After parsing, deadlines,
// key redaction, a fetch that keeps credentials at their origin, capped body reads. Exported from
// `@bosun/core` so that every adapter — a third party's too — gets the same guarantees.
export { CONTEXT_WINDOW_MESSAGE, errorFromResponse, MAX_PROVIDER_MESSAGE, maxTokensOverLimit, maxTokensOverLimitHint, maxTokensRefusal, modelErrorFromResponse, providerMessage, tooLargeHint } from './http-error.js'
export type { MaxTokensOverLimit, ResponseErrorOptions, SentMaxTokens } from './http-error.js'
export { parseDuration, retryAfterMs } from './retry-after.js'
export { DEFAULT_IDLE_TIMEOUT_MS, deadlineOptionsSchema, isContentChunk, withContentDeadline, withIdleTimeout } from './deadline.js'
export type { Deadlines } from './deadline.js'
export { excerpt, maskSecret, MIN_MASKED_KEY_PREFIX, redactSecret } from './redact.js'
export { badPortFailure } from './bad-port.js'
export { fetchWithoutRedirects } from './provider-fetch.js'
export { shownBaseURL } from './base-url.js'
export { labelInSentence, serverLabel } from './server-label.js'
export { adapterOptionProblems, apiKeyEnvOptionSchema, baseURLOptionSchema, headersOptionSchema } from './options.js'
export { MAX_ERROR_BODY_BYTES, MAX_JSON_BODY_BYTES, readBodyText } from './read-body.js'
export { requestParallelToolCalls, requestParamError, requestToolChoice } from './tool-choice.js'
export type { RequestToolChoice } from './tool-choice.js'
