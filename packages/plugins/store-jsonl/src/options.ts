import { assertOptions } from '@bosun/core'
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

/** A timer's longest wait in ms: Node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** JSON Schema of {@link JsonlStoreConfig}: a config file's options and `jsonlStore()`'s from code are checked against it. */
export const jsonlStoreOptionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    dir: { type: 'string', minLength: 1, description: 'Folder of the session files, relative to the config file.' },
    batchWindowMs: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, description: 'Write-behind batch window in milliseconds (default 4).' },
    journal: { type: 'boolean', description: 'Make batches durable through the store journal, one fdatasync per commit round for all its sessions (default true); false: each session file is fdatasynced itself.' },
  },
  required: ['dir'],
  additionalProperties: false,
}

/**
 * Checks options given in code against {@link jsonlStoreOptionsSchema} — the schema a config
 * file's are checked with, so a mistake reads the same — then `fs`, which only code can give (it
 * is not in the schema): it must implement {@link StoreFileSystem}. Throws `INVALID_ARGUMENT`
 * listing every problem: `Invalid options for jsonlStore():\n  - $.dir: must not be empty (found "")`.
 */
export function checkJsonlStoreOptions(options: JsonlStoreOptions): void {
  const withFs = typeof options === 'object' && options !== null && 'fs' in options
  const config = withFs ? withoutFs(options) : options
  assertOptions(jsonlStoreOptionsSchema, config, 'jsonlStore()', {
    check: () => (options.fs === undefined || typeof options.fs?.open === 'function' ? [] : [{ keys: ['fs'], message: 'must implement StoreFileSystem (open, readdir, mkdir, unlink)', found: options.fs }]),
  })
}

function withoutFs(options: JsonlStoreOptions): JsonlStoreConfig {
  const { fs: _fs, ...config } = options
  return config
}
