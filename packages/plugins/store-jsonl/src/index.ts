/**
 * @bosun/plugin-store-jsonl — sessions as append-only JSONL files, written behind in fsynced
 * batches. Name it in a config file (`store: ['store-jsonl', { dir: '.bosun/sessions' }]`) or call
 * {@link jsonlStore} from code.
 */
import { defineStore } from '@bosun/core'
import { jsonlStoreOptionsSchema, type JsonlStoreConfig } from './options.js'
import { jsonlStore } from './store.js'

export { jsonlStore } from './store.js'
export { DEFAULT_BATCH_WINDOW_MS, jsonlStoreOptionsSchema } from './options.js'
export type { JsonlStoreConfig, JsonlStoreOptions } from './options.js'
export { nodeFileSystem } from './file-system.js'
export type { StoreFileHandle, StoreFileSystem } from './file-system.js'

/**
 * The store definition a config file names. Options are validated against
 * {@link jsonlStoreOptionsSchema}; a relative `dir` resolves from the config file's folder.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ store: ['store-jsonl', { dir: '.bosun/sessions', batchWindowMs: 4 }] })
 */
export default defineStore<JsonlStoreConfig>({
  name: 'store-jsonl',
  schema: jsonlStoreOptionsSchema,
  // createStore resolves `dir` against the config file's folder before it checks the options: jsonlStore() gets
  // the very value checked, and does not check it again.
  paths: ['dir'],
  create: (options) => jsonlStore(options),
})
