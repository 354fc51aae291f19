import type { BosunConfig } from './types.js'

/**
 * Returns the config unchanged; its only job is the type, which gives a TS config full checking
 * (a misspelt key is an error) and completion.
 *
 * @example
 * // bosun.config.ts
 * import { defineConfig } from '@bosun/core/config'
 * export default defineConfig({
 *   model: { adapter: 'openai', options: { model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY' } },
 *   store: ['store-jsonl', { dir: '.bosun/sessions' }],
 *   plugins: ['retry', ['rate-limit', { turnsPerMinute: 20 }]],
 * })
 */
export function defineConfig(config: BosunConfig): BosunConfig {
  return config
}
