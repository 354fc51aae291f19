import { defineStore } from '@bosun/core'
import { postgresStoreOptionsSchema } from './options.js'
import type { PostgresStoreOptions } from './options.js'
import { postgresStore } from './store.js'

export { postgresStore } from './store.js'
export type { PostgresStore } from './store.js'
export { postgresStoreOptionsSchema } from './options.js'
export type { PostgresStoreOptions } from './options.js'
export { SCHEMA_VERSION } from './schema.js'
// The code of a mailbox post for a session that is not stored (never made, or removed).
export { SESSION_NOT_FOUND } from './errors.js'
export type { Lease, LeaseHolder } from './leases.js'
// Made by the store (store.mailbox, store.watch(), the writers of open/create): types only.
export type { Mailbox, MailboxEntry } from './mailbox.js'
export type { Watcher, WatchOptions } from './watch.js'
export type { PostgresWriter } from './writer.js'

/**
 * The store definition a config file names: `store: ['store-postgres', { urlEnv: 'BOSUN_PG_URL' }]`.
 * Options are validated against {@link postgresStoreOptionsSchema}; the config loader refuses a
 * `url` that carries a password or any other credential (use `urlEnv`).
 */
export default defineStore<PostgresStoreOptions>({
  name: 'store-postgres',
  schema: postgresStoreOptionsSchema,
  create: (options) => postgresStore(options),
})
