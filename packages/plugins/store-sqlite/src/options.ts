import { assertOptions } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'

/** Options of the SQLite store; the same shape is accepted from a config file. */
export interface SqliteStoreOptions {
  /**
   * The database file. From a config file, a relative path resolves from the config file's folder;
   * from code, from the current working directory. Its folder is created if missing.
   */
  file: string
  /**
   * How long appends are gathered before the writer commits them as one transaction, in
   * milliseconds. `0` still batches every append made in the same tick. Default 4.
   */
  batchWindowMs?: number
}

/** A timer's longest wait in ms: Node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** The JSON Schema of {@link SqliteStoreOptions}: a config file's options and `sqliteStore()`'s from code are checked against it. */
export const sqliteStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    file: { type: 'string', minLength: 1, description: 'The database file (relative to the config file).' },
    batchWindowMs: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_TIMER_MS,
      description: 'How long appends are gathered into one transaction, in milliseconds. Default 4.',
    },
  },
  required: ['file'],
  additionalProperties: false,
}

/** Default of {@link SqliteStoreOptions.batchWindowMs}. */
export const DEFAULT_BATCH_WINDOW_MS = 4

/**
 * Checks options given from code against {@link sqliteStoreOptionsSchema} — the schema a config
 * file's are checked with, so a mistake reads the same — and fills the default. Throws
 * `INVALID_ARGUMENT` listing every problem: `Invalid options for sqliteStore():\n  - $.file: is required`.
 */
export function checkOptions(options: SqliteStoreOptions): Required<SqliteStoreOptions> {
  const { file, batchWindowMs = DEFAULT_BATCH_WINDOW_MS } = assertOptions<SqliteStoreOptions>(sqliteStoreOptionsSchema, options, 'sqliteStore()')
  return { file, batchWindowMs }
}
