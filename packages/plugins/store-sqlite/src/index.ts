import { defineStore } from '@bosun/core'
import { sqliteStoreOptionsSchema } from './options.js'
import type { SqliteStoreOptions } from './options.js'
import { sqliteStore } from './store.js'

export { sqliteStore } from './store.js'
export type { SqliteStore } from './store.js'
export { DEFAULT_BATCH_WINDOW_MS, sqliteStoreOptionsSchema } from './options.js'
export type { SqliteStoreOptions } from './options.js'
export { SCHEMA_VERSION } from './schema.js'

/**
 * The store definition a config file names: `store: ['store-sqlite', { file: '.bosun/sessions.sqlite' }]`.
 * Options are validated against {@link sqliteStoreOptionsSchema}; a relative `file` resolves from
 * the config file's folder.
 */
export default defineStore<SqliteStoreOptions>({
  name: 'store-sqlite',
  schema: sqliteStoreOptionsSchema,
  // createStore resolves `file` against the config file's folder before it checks the options: sqliteStore() gets
  // the very value checked, and does not check it again.
  paths: ['file'],
  create: (options) => sqliteStore(options),
})
