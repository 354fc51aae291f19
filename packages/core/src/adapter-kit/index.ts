// Helpers for HTTP adapter packages: typed errors from responses, Retry-After parsing, an idle
// watchdog. Exported from `@bosun/core` so that every adapter maps failures the same way.
export { modelErrorFromResponse, providerMessage } from './http-error.js'
export { parseDuration, retryAfterMs } from './retry-after.js'
export { withIdleTimeout } from './idle-timeout.js'
export { redactSecret } from './redact.js'
