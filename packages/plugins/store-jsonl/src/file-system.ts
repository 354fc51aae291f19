import { constants as fsConstants, fstatSync } from 'node:fs'
import * as nodeFs from 'node:fs/promises'

/**
 * The part of a `node:fs/promises` `FileHandle` the JSONL store uses. Every method may reject
 * with a Node.js system error (`code: 'ENOSPC'`, `'EIO'`, …); the store rolls back and reports it.
 */
export interface StoreFileHandle {
  /** pwrite(2): writes `length` bytes of `buffer` from `offset` at file `position`; may write fewer. */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>
  /** pread(2): reads up to `length` bytes at file `position` into `buffer` from `offset`. */
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>
  /** Reads the whole file from the handle's current position (0 for a fresh handle). */
  readFile(): Promise<Buffer>
  /** fdatasync(2): used for batches and rollbacks. */
  datasync(): Promise<void>
  /** fsync(2): used for a new file and for directories. */
  sync(): Promise<void>
  /** ftruncate(2). */
  truncate(length: number): Promise<void>
  /**
   * fstat(2); only `size` is read. May answer synchronously: the real file system does (an fstat
   * of an open file reads cached metadata, cheaper than a thread-pool round trip per batch).
   */
  stat(): Promise<{ size: number }> | { size: number }
  close(): Promise<void>
  /**
   * True when each `write` is durable once it returns (the file was opened with `O_DSYNC`): the
   * writer then skips the separate fdatasync of a batch — one thread-pool round trip per flush.
   */
  readonly durableWrites?: boolean
}

/**
 * The file-system operations of the JSONL store, a structural subset of `node:fs/promises`
 * (which is the default). Tests inject a wrapper to count calls or to fail the k-th write with
 * ENOSPC. A directory is fsynced by opening it with flags `'r'` and calling `sync()`.
 */
export interface StoreFileSystem {
  /** Flags used: `'r'` (read a header, sync a directory), `'r+'` (open a session), `'wx'` (create one, O_EXCL). */
  open(path: string, flags: string, mode?: number): Promise<StoreFileHandle>
  readdir(path: string): Promise<string[]>
  mkdir(path: string, options: { recursive: true }): Promise<string | undefined>
  /** Removes a file whose creation failed half-way. */
  unlink(path: string): Promise<void>
}

const { O_CREAT, O_DSYNC, O_EXCL, O_RDWR, O_WRONLY } = fsConstants
/**
 * The session handles ('r+' to append, 'wx' to create) opened with O_DSYNC on Linux: a `pwrite`
 * that returns is on disk, as if followed by fdatasync. Not elsewhere: on macOS libuv's fdatasync
 * is F_FULLFSYNC (it also flushes the drive's cache), which O_DSYNC is not; Windows has no O_DSYNC.
 */
const DSYNC_FLAGS: Record<string, number> = process.platform !== 'linux' || O_DSYNC === undefined ? {} : {
  'r+': O_RDWR | O_DSYNC,
  wx: O_WRONLY | O_CREAT | O_EXCL | O_DSYNC,
}

/**
 * The real file system: `node:fs/promises`, with `stat` on a session handle answered by a
 * synchronous `fstat` of its descriptor (the writer calls it before every batch), and session
 * files opened O_DSYNC so that a batch is one durable `pwrite`.
 */
export const nodeFileSystem: StoreFileSystem = {
  readdir: (path) => nodeFs.readdir(path),
  mkdir: (path, options) => nodeFs.mkdir(path, options),
  unlink: (path) => nodeFs.unlink(path),
  async open(path, flags, mode) {
    const durable = flags in DSYNC_FLAGS
    const handle = await nodeFs.open(path, durable ? DSYNC_FLAGS[flags]! : flags, mode)
    return {
      durableWrites: durable,
      write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
      read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
      readFile: () => handle.readFile(),
      datasync: () => handle.datasync(),
      sync: () => handle.sync(),
      truncate: (length) => handle.truncate(length),
      stat: () => fstatSync(handle.fd),
      close: () => handle.close(),
    }
  },
}

/**
 * fsyncs a directory, making the entries created or removed in it durable. Not on Windows, which
 * refuses to fsync a directory handle (EPERM) and journals its entries itself.
 */
export async function syncDirectory(fs: StoreFileSystem, path: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await fs.open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** The Node.js error code of `error` (`ENOENT`, `ENOSPC`…), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}
