import { definePlugin, Stage } from '@bosun/core'
import { optionsSchema, resolvePolicy, type Options } from './options.js'
import { retryingStream } from './retrying-stream.js'

export { DEFAULT_RETRY_ON, optionsSchema } from './options.js'
export type { Options, RetryPolicy } from './options.js'
export { backoffDelay, decide } from './policy.js'
export type { RetryDecision } from './policy.js'

/**
 * retry: sends a failed model request again inside the same step — rate limits, server errors,
 * timeouts, connection resets and empty responses by default — with exponential backoff and
 * jitter, honouring the provider's `retryAfterMs`, logging `llm/retry` before each wait.
 *
 * It taps `llm/stream` at `Stage.first`, so it wraps the adapter's stream directly and every other
 * stream tap (an output filter) wraps it: a retried attempt passes through them too, and a request
 * an outer tap sends again (`context.open()` goes through the taps inside the caller) is retried.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ plugins: [['retry', { maxAttempts: 5, maxDelayMs: 30000 }]] })
 */
export default definePlugin<Options>({
  name: 'retry',
  schema: optionsSchema,
  setup({ hooks, name }, options) {
    const policy = resolvePolicy(options)
    hooks.llmStream.tap({ name, stage: Stage.first }, (stream, context) => retryingStream(stream, context, policy))
  },
})
