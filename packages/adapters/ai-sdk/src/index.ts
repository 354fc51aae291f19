import { defineAdapter } from '@bosun/core'
import { aiSdk } from './adapter.js'
import { aiSdkOptionsSchema } from './options.js'
import type { AiSdkOptions } from './options.js'

export { aiSdk } from './adapter.js'
export type { AiSdkAdapter } from './adapter.js'
export { aiSdkOptionsSchema } from './options.js'
export type { AiSdkLanguageModel, AiSdkOptions, AiSdkProviderOptions, AiSdkSpecificationVersion } from './options.js'
export { toModelError } from './errors.js'
/** Give it to the provider (`createOpenAI({ fetch: fetchWithoutRedirects })`): see the README's "Credentials and redirects". */
export { fetchWithoutRedirects } from '@bosun/core'

/**
 * The adapter definition a TypeScript config file names:
 * `model: { adapter: aiSdk, options: { model: openai('gpt-4.1') } }`.
 * Options are validated against {@link aiSdkOptionsSchema} before `create`.
 */
export default defineAdapter<AiSdkOptions>({
  name: 'ai-sdk',
  schema: aiSdkOptionsSchema,
  create: (options) => aiSdk(options),
})
