import { constants as fsConstants, fstatSync, writeSync } from 'node:fs'
import * as nodeFs from 'node:fs/promises'

/**
 * The part of a `node:fs/promises` `FileHandle` the JSONL store uses. Every method may reject
 * with a Node.js system error (`code: 'ENOSPC'`, `'EIO'`, …); the store rolls back and reports it.
 */
export interface StoreFileHandle {
  /** pwrite(2): writes `length` bytes of `buffer` from `offset` at file `position`; may write fewer. */
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>
  /**
   * pwrite(2) on the calling thread, returning the number of bytes written (may be fewer). When a
   * handle has it, the writer uses it instead of `write`: a batch goes to the page cache without a
   * thread-pool round trip, and only its fdatasync runs in the pool — after the other sessions of
   * the same group-commit round have written theirs (commit.ts).
   */
  writeSync?(buffer: Uint8Array, offset: number, length: number, position: number): number
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
   * fstat(2). May answer synchronously: the real file system does (an fstat of an open file reads
   * cached metadata, cheaper than a thread-pool round trip per batch).
   */
  stat(): Promise<StoreFileStat> | StoreFileStat
  close(): Promise<void>
  /**
   * True when each `write` is durable once it returns (e.g. a file opened `O_DSYNC`): the writer
   * then skips the fdatasync of a batch. The default file system does not set it (its session files
   * are written with `writeSync` and synced together with the other sessions' files, see commit.ts).
   */
  readonly durableWrites?: boolean
}

/**
 * What the store reads of an fstat(2): `size` always; the rest when the file system gives it
 * (Node's `Stats` does). With them the store refuses a session file that is not a regular file or
 * has more than one name, and locks a file by its identity (`dev` + `ino`), not by its path.
 */
export interface StoreFileStat {
  size: number
  /** Number of names (hard links) of the file; 0 once it was deleted. */
  nlink?: number
  dev?: number | bigint
  ino?: number | bigint
  isFile?(): boolean
}

/**
 * The file-system operations of the JSONL store, a structural subset of `node:fs/promises`
 * (which works as one, without the protections below). Tests inject a wrapper to count calls or
 * to fail the k-th write with ENOSPC.
 *
 * Session files are opened by name inside the sessions folder; an implementation must not follow
 * a symbolic link there, nor block opening a FIFO ({@link nodeFileSystem} opens them `O_NOFOLLOW`
 * and `O_NONBLOCK`). The store refuses what the opened handle's `stat()` says is not a regular file.
 */
export interface StoreFileSystem {
  /** Flags used, all on session files: `'r'` (read a header or a session), `'r+'` (open a session), `'wx'` (create one, O_EXCL). */
  open(path: string, flags: string, mode?: number): Promise<StoreFileHandle>
  /**
   * Opens a directory to fsync it (the sessions folder, which may itself be a link: the folder is
   * configuration, unlike the entries in it). Without it the store uses `open(path, 'r')`.
   */
  openDirectory?(path: string): Promise<StoreFileHandle>
  readdir(path: string): Promise<string[]>
  /**
   * mkdir(2) of one folder, as `node:fs/promises` `mkdir` with `{ recursive: false }`: rejects with
   * EEXIST when the path exists, ENOENT when its parent does not. The store creates its folder's
   * missing parents itself, one call each (store-folder.ts): an implementation must not create
   * parents (Node's recursive mkdir never returns on some paths, such as /proc/nope/s).
   */
  mkdir(path: string, options?: { recursive?: boolean }): Promise<unknown>
  /** Removes a file whose creation failed half-way. */
  unlink(path: string): Promise<void>
  /**
   * rename(2), used for one thing: replacing a session's list summary (`<id>.summary.json`, a
   * cache, summary-file.ts) at once. Without it the store keeps no summaries, and `list()` reads
   * every session's whole log.
   */
  rename?(from: string, to: string): Promise<void>
}

const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_RDWR, O_WRONLY } = fsConstants
/**
 * Session files are opened O_NOFOLLOW: a link planted as `<id>.jsonl` fails (ELOOP) instead of
 * making the store read or write its target, outside the folder and under another file's lock.
 * And O_NONBLOCK: opening a FIFO named like a session returns at once (an O_RDONLY open would wait
 * for a writer forever) so that the store can fstat it and refuse it. Neither changes anything
 * for a regular file. Windows has neither flag: the string flags are used there.
 */
const SESSION_FLAGS: Record<string, number> = process.platform === 'win32' || O_NOFOLLOW === undefined ? {} : {
  r: O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
  'r+': O_RDWR | O_NOFOLLOW | O_NONBLOCK,
  // O_CREAT | O_EXCL never follows a link (it fails with EEXIST); O_NOFOLLOW says so twice.
  wx: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
}
/** A directory to fsync: O_DIRECTORY, so that anything else (a FIFO planted there) fails instead of blocking. */
const DIRECTORY_FLAGS = process.platform === 'win32' || O_DIRECTORY === undefined ? 'r' : O_RDONLY | O_DIRECTORY

/**
 * The real file system: `node:fs/promises`, with `stat` on a session handle answered by a
 * synchronous `fstat` of its descriptor (the writer calls it before every batch), session files
 * opened without following links and without blocking, and a synchronous `writeSync` on the
 * handles opened to write: a batch reaches the page cache without a thread-pool round trip (a
 * few microseconds for a few KB), and its `fdatasync` — the part that waits for the disk — is the
 * one asynchronous operation per flush, started with those of the other sessions of its round.
 */
export const nodeFileSystem: StoreFileSystem = {
  readdir: (path) => nodeFs.readdir(path),
  mkdir: (path, options) => nodeFs.mkdir(path, options),
  unlink: (path) => nodeFs.unlink(path),
  rename: (from, to) => nodeFs.rename(from, to),
  async open(path, flags, mode) {
    const handle = await nodeFs.open(path, SESSION_FLAGS[flags] ?? flags, mode)
    return wrapHandle(handle, flags === 'r+' || flags === 'wx')
  },
  openDirectory: async (path) => wrapHandle(await nodeFs.open(path, DIRECTORY_FLAGS), false),
}

function wrapHandle(handle: nodeFs.FileHandle, writable: boolean): StoreFileHandle {
  return {
    ...(writable ? { writeSync: (buffer: Uint8Array, offset: number, length: number, position: number) => writeSync(handle.fd, buffer, offset, length, position) } : {}),
    write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    readFile: () => handle.readFile(),
    datasync: () => handle.datasync(),
    sync: () => handle.sync(),
    truncate: (length) => handle.truncate(length),
    stat: () => fstatSync(handle.fd),
    close: () => handle.close(),
  }
}

/**
 * fsyncs a directory, making the entries created or removed in it durable. Not on Windows, which
 * refuses to fsync a directory handle (EPERM) and journals its entries itself.
 */
export async function syncDirectory(fs: StoreFileSystem, path: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await (fs.openDirectory ? fs.openDirectory(path) : fs.open(path, 'r'))
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
