import { invalidArgument } from '@bosun/core'
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

/** The JSON Schema of {@link SqliteStoreOptions}, validated before a config file's store is created. */
export const sqliteStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    file: { type: 'string', minLength: 1, description: 'The database file (relative to the config file).' },
    batchWindowMs: {
      type: 'integer',
      minimum: 0,
      description: 'How long appends are gathered into one transaction, in milliseconds. Default 4.',
    },
  },
  required: ['file'],
  additionalProperties: false,
}

/** Default of {@link SqliteStoreOptions.batchWindowMs}. */
export const DEFAULT_BATCH_WINDOW_MS = 4

/** Checks options given from code (a config file's options are checked by the schema first). */
export function checkOptions(options: SqliteStoreOptions): Required<SqliteStoreOptions> {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('sqliteStore(options): options must be an object with a "file".')
  }
  const { file, batchWindowMs = DEFAULT_BATCH_WINDOW_MS } = options
  if (typeof file !== 'string' || file.length === 0) {
    throw invalidArgument(`sqliteStore(): "file" must be a non-empty path, got ${JSON.stringify(file)}.`)
  }
  if (!Number.isSafeInteger(batchWindowMs) || batchWindowMs < 0) {
    throw invalidArgument(`sqliteStore(): "batchWindowMs" must be a non-negative integer, got ${String(batchWindowMs)}.`)
  }
  return { file, batchWindowMs }
}
