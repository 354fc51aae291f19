// A real-file-system wrapper for the tests: records every call, and fails or holds the calls a
// test picks. It is the only stand-in the tests use; all bytes go to real files.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodeFileSystem, type StoreFileHandle, type StoreFileSystem } from '../file-system.js'

export type FsOp = 'open' | 'read' | 'readFile' | 'write' | 'datasync' | 'sync' | 'truncate' | 'stat' | 'close' | 'readdir' | 'mkdir' | 'unlink'

export interface FsCall {
  op: FsOp
  path: string
}

export interface RecordingFs extends StoreFileSystem {
  readonly calls: FsCall[]
  /** Returns an errno code to make this call fail with it (a failing write writes half its bytes first). */
  fail: (call: FsCall) => string | undefined
  /** Returns a promise to hold this call until it settles. */
  hold: (call: FsCall) => Promise<void> | undefined
  /** Resolves at the next call that matches. */
  next(match: (call: FsCall) => boolean): Promise<FsCall>
  /** Calls of `op` so far. */
  count(op: FsOp): number
}

/**
 * By default the handles offer the asynchronous `write` only. `writeSync: true` passes the base
 * handles' synchronous `writeSync` through (the default file system's: the production path),
 * recorded as a 'write' that can fail (after writing half) but not be held. `durableWrites: true`
 * passes the base handles' `durableWrites` flag through (a custom file system opening O_DSYNC).
 */
export function recordingFs(base: StoreFileSystem = nodeFileSystem, options: { writeSync?: boolean; durableWrites?: boolean } = {}): RecordingFs {
  const waiters: { match: (call: FsCall) => boolean; resolve: (call: FsCall) => void }[] = []
  const fs: RecordingFs = {
    calls: [],
    fail: () => undefined,
    hold: () => undefined,
    next: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
    count: (op) => fs.calls.filter((call) => call.op === op).length,
    open: async (path, flags, mode) => {
      await enter({ op: 'open', path })
      return wrap(await base.open(path, flags, mode), path)
    },
    // Recorded as an 'open' of the directory: what the tests check is which paths are fsynced.
    openDirectory: async (path) => {
      await enter({ op: 'open', path })
      return wrap(await (base.openDirectory ? base.openDirectory(path) : base.open(path, 'r')), path)
    },
    readdir: async (path) => (await enter({ op: 'readdir', path }), base.readdir(path)),
    mkdir: async (path, options) => (await enter({ op: 'mkdir', path }), base.mkdir(path, options)),
    unlink: async (path) => (await enter({ op: 'unlink', path }), base.unlink(path)),
  }

  /** Records a synchronous call and fails it if the test asks (it cannot be held). */
  function enterSync(call: FsCall, partialWrite: () => unknown): void {
    fs.calls.push(call)
    for (const waiter of waiters.filter((w) => w.match(call))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(call)
    }
    const code = fs.fail(call)
    if (code === undefined) return
    partialWrite()
    throw Object.assign(new Error(`${code}: injected failure, ${call.op} '${call.path}'`), { code, syscall: call.op, path: call.path })
  }

  /** Records the call, then holds or fails it as the test asked. */
  async function enter(call: FsCall, partialWrite?: () => Promise<unknown>): Promise<void> {
    fs.calls.push(call)
    for (const waiter of waiters.filter((w) => w.match(call))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(call)
    }
    await fs.hold(call)
    const code = fs.fail(call)
    if (code === undefined) return
    await partialWrite?.()
    throw Object.assign(new Error(`${code}: injected failure, ${call.op} '${call.path}'`), { code, syscall: call.op, path: call.path })
  }

  function wrap(handle: StoreFileHandle, path: string): StoreFileHandle {
    const writeSync = handle.writeSync
    return {
      durableWrites: options.durableWrites === true && handle.durableWrites === true,
      ...(options.writeSync === true && writeSync
        ? {
            writeSync: (buffer: Uint8Array, offset: number, length: number, position: number) => {
              enterSync({ op: 'write', path }, () => writeSync(buffer, offset, Math.floor(length / 2), position))
              return writeSync(buffer, offset, length, position)
            },
          }
        : {}),
      write: async (buffer, offset, length, position) => {
        // A real ENOSPC typically lands after part of the data: write half, then fail.
        await enter({ op: 'write', path }, () => handle.write(buffer, offset, Math.floor(length / 2), position))
        return handle.write(buffer, offset, length, position)
      },
      read: async (buffer, offset, length, position) => (await enter({ op: 'read', path }), handle.read(buffer, offset, length, position)),
      readFile: async () => (await enter({ op: 'readFile', path }), handle.readFile()),
      datasync: async () => (await enter({ op: 'datasync', path }), handle.datasync()),
      sync: async () => (await enter({ op: 'sync', path }), handle.sync()),
      truncate: async (length) => (await enter({ op: 'truncate', path }), handle.truncate(length)),
      stat: async () => (await enter({ op: 'stat', path }), handle.stat()),
      close: async () => (await enter({ op: 'close', path }), handle.close()),
    }
  }

  return fs
}

/** A fresh temporary directory and its removal. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bosun-jsonl-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * A fault for {@link RecordingFs.fail}: the first fdatasync of a file `where` picks fails, and from
 * then on every ftruncate and write of those files — a batch's sync, then its rollback's cut and
 * the zeros written instead (the triple failure).
 */
export function syncThenCutAndZerosFail(where: (call: FsCall) => boolean): (call: FsCall) => string | undefined {
  let synced = false
  return (call) => {
    if (!where(call)) return undefined
    if (call.op === 'datasync' && !synced) return (synced = true), 'EIO'
    return synced && (call.op === 'truncate' || call.op === 'write') ? 'EIO' : undefined
  }
}
