import { defineAdapter } from '@bosun/core'
import { openai } from './adapter.js'
import { openaiOptionsSchema } from './options.js'
import type { OpenAIOptions } from './options.js'

export { openai } from './adapter.js'
export type { OpenAIAdapter } from './adapter.js'
export { DEFAULT_BASE_URL, DEFAULT_IDLE_TIMEOUT_MS, openaiOptionsSchema } from './options.js'
export type { MaxTokensField, OpenAIOptions } from './options.js'
export { providerToolCallId } from './request.js'

/**
 * The adapter definition a config file names: `model: { adapter: 'openai', options }`.
 * Options are validated against {@link openaiOptionsSchema} before `create`.
 */
export default defineAdapter<OpenAIOptions>({
  name: 'openai',
  schema: openaiOptionsSchema,
  create: (options) => openai(options),
})
