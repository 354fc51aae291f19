import { defineAdapter } from '@bosun/core'
import { scriptedOptionsSchema } from './options.js'
import type { ScriptedOptions } from './options.js'
import { scripted } from './scripted.js'

export { scripted } from './scripted.js'
export type { ScriptedAdapter, ScriptedRecord } from './scripted.js'
export { scriptedOptionsSchema, scriptedResponseSchema } from './options.js'
export type {
  ScriptedEntry, ScriptedError, ScriptedOptions, ScriptedResponse, ScriptedResponseFunction, ScriptedToolCall,
} from './options.js'

/**
 * The adapter definition a config file names: `model: { adapter: 'scripted', options }`.
 * Options are validated against {@link scriptedOptionsSchema} before `create`.
 */
export default defineAdapter<ScriptedOptions>({
  name: 'scripted',
  schema: scriptedOptionsSchema,
  create: (options) => scripted(options),
})
