import { fstatSync } from 'node:fs'
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

/**
 * The real file system: `node:fs/promises`, with `stat` on a session handle answered by a
 * synchronous `fstat` of its descriptor (the writer calls it before every batch).
 */
export const nodeFileSystem: StoreFileSystem = {
  readdir: (path) => nodeFs.readdir(path),
  mkdir: (path, options) => nodeFs.mkdir(path, options),
  unlink: (path) => nodeFs.unlink(path),
  async open(path, flags, mode) {
    const handle = await nodeFs.open(path, flags, mode)
    return {
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

/** fsyncs a directory, making the entries created or removed in it durable. */
export async function syncDirectory(fs: StoreFileSystem, path: string): Promise<void> {
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
