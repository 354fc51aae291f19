import { defineAdapter } from '@bosun/core'
import { anthropic } from './adapter.js'
import { anthropicOptionsSchema } from './options.js'
import type { AnthropicOptions } from './options.js'

export { anthropic, ANTHROPIC_VERSION } from './adapter.js'
export type { AnthropicAdapter } from './adapter.js'
export { anthropicOptionsSchema, thinkingBudgets } from './options.js'
export type { AnthropicOptions, ReasoningEffort } from './options.js'
export { toAnthropicRequest, toolUseId } from './request.js'
export type { AnthropicMessage, AnthropicPart, AnthropicRequestBody } from './request.js'

/**
 * The adapter definition a config file names: `model: { adapter: 'anthropic', options }`.
 * Options are validated against {@link anthropicOptionsSchema} before `create`.
 */
export default defineAdapter<AnthropicOptions>({
  name: 'anthropic',
  schema: anthropicOptionsSchema,
  create: (options) => anthropic(options),
})
