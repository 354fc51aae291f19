import type { LogSummaryFold } from '@bosun/core'
import type { StoreFileHandle, StoreFileSystem } from './file-system.js'
import type { StoreJournal } from './journal.js'
import type { JsonlWriter } from './writer.js'

/** What a {@link JsonlWriter} starts from. */
export interface JsonlWriterOptions {
  id: string
  file: string
  /** The session file, open for writing. The writer owns it from now on. */
  handle: StoreFileHandle
  /** The file's length in bytes, all of it durable. */
  size: number
  /** Number of events in the file: the seq the first append must carry. */
  length: number
  batchWindowMs: number
  /**
   * The store's journal (journal.ts): when given, a batch is made durable by one fdatasync of the
   * journal shared with the other sessions of its round, not by its own file's.
   */
  journal?: StoreJournal
  /** crc32 of the file's header line, written in each journal record (needed with `journal`) and in the record of a valid length. */
  headerCrc?: number
  /**
   * The store's file system: where the file's valid length is recorded if a failed batch can be
   * neither cut off nor zeroed (tail.ts). Without it, such a batch may come back (`rolledBack: false`).
   */
  fs?: StoreFileSystem
  /**
   * The list summary of the file's events (core's fold), which the writer folds on with every
   * append and writes beside the file (summary-file.ts) when it closes and every
   * `SUMMARY_EVERY_BYTES` of log. Without it (or without `fs`), the writer keeps no summary.
   */
  summary?: LogSummaryFold
  /**
   * The file's length when the sidecar beside it is already the one `summary` would write (the
   * store checked it at open): nothing to write at close unless the log grows. Default 0: none known.
   */
  summarisedAt?: number
  /** Called once the file is closed (the store forgets the writer and releases the session's lock). */
  onClose: (writer: JsonlWriter) => void | Promise<void>
}
