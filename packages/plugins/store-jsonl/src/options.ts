import { invalidArgument } from '@bosun/core'
import type { JsonSchema } from '@bosun/core'
import type { StoreFileSystem } from './file-system.js'

/** Options of the JSONL store as a config file gives them (`store: ['store-jsonl', options]`). */
export interface JsonlStoreConfig {
  /** Folder of the session files, created if missing. In a config file, relative to the config file's folder. */
  dir: string
  /**
   * How long appended events wait for company before they are written as one batch, in ms.
   * `flush()` never waits for it. Default 4.
   */
  batchWindowMs?: number
  /**
   * Make batches durable through the store journal: one fdatasync per commit round shared by
   * every session of the round, session files synced in the background (default {@link DEFAULT_JOURNAL}). `false`:
   * one fdatasync of each session's own file per batch, no journal file.
   */
  journal?: boolean
}

/** Options of {@link jsonlStore} in code: the config options plus an injectable file system. */
export interface JsonlStoreOptions extends JsonlStoreConfig {
  /** The file-system layer; default `node:fs/promises`. Tests inject faults through it. */
  fs?: StoreFileSystem
}

/** The default batch window: short enough to be invisible, long enough to coalesce a burst of chunks. */
export const DEFAULT_BATCH_WINDOW_MS = 4

/** Whether batches go through the store journal unless the options say (journal.ts). */
export const DEFAULT_JOURNAL = true

/** JSON Schema of {@link JsonlStoreConfig}, validated before the store is created from a config file. */
export const jsonlStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    dir: { type: 'string', minLength: 1, description: 'Folder of the session files, relative to the config file.' },
    batchWindowMs: { type: 'integer', minimum: 0, description: 'Write-behind batch window in milliseconds (default 4).' },
    journal: { type: 'boolean', description: 'Make batches durable through the store journal, one fdatasync per commit round for all its sessions (default true); false: each session file is fdatasynced itself.' },
  },
  required: ['dir'],
  additionalProperties: false,
}

/** The same checks for options given in code, where the schema does not run. */
export function checkJsonlStoreOptions(options: JsonlStoreOptions): void {
  if (typeof options !== 'object' || options === null) throw invalidArgument('jsonlStore(options): options must be an object.')
  if (typeof options.dir !== 'string' || options.dir.length === 0) {
    throw invalidArgument('jsonlStore(): "dir" must be a non-empty path (the folder of the session files).')
  }
  const window = options.batchWindowMs
  if (window !== undefined && (!Number.isSafeInteger(window) || window < 0)) {
    throw invalidArgument(`jsonlStore(): "batchWindowMs" must be an integer >= 0, got ${String(window)}.`)
  }
  if (options.journal !== undefined && typeof options.journal !== 'boolean') {
    throw invalidArgument(`jsonlStore(): "journal" must be true or false, got ${String(options.journal)}.`)
  }
  if (options.fs !== undefined && typeof options.fs?.open !== 'function') {
    throw invalidArgument('jsonlStore(): "fs" must implement StoreFileSystem (open, readdir, mkdir, unlink).')
  }
}
