import { constants as fsConstants, readFileSync } from 'node:fs'
import { lstat, open, unlink } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { BosunError, ErrorCodes } from '@bosun/core'
import { specialKind, unsafeLockFile } from './file-safety.js'
import { errnoCode } from './file-system.js'

/**
 * Tokens of the lock files this process holds. A lock file naming this pid is alive exactly when
 * its token is here, whatever path reached it: a second store of this process whose folder is a
 * link to the first one's finds the same lock file under another name, and must be refused too.
 */
const ownTokens = new Set<string>()
/**
 * The session files this process writes, by identity (`dev:ino`) → the token of the lock taken
 * for it. Two paths to one file (two folders linked together, a file moved while open) cannot
 * both get a writer in this process, even though their lock paths differ.
 */
const heldFiles = new Map<string, string>()

/** Who holds a lock, as its file says. */
interface LockOwner {
  pid: number
  host: string
  token?: string
  /** The kernel's boot id when the lock was written (Linux): a lock from an earlier boot has no live owner, whatever its pid is now. */
  boot?: string
}

/** This boot's id (Linux `/proc/sys/kernel/random/boot_id`); undefined elsewhere. */
const BOOT_ID: string | undefined = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
})()

export interface SessionLock {
  readonly path: string
  /**
   * Binds the lock to the session file's identity (`dev:ino`, see {@link heldFiles}); throws
   * SESSION_LOCKED if this process already writes that file under another path.
   */
  identify(identity: string): void
  /** Removes the lock file. Idempotent. */
  release(): Promise<void>
}

/**
 * Takes the write lock of a session: `<file>.lock`, created exclusively, holding the owner's pid
 * and host. One writer per session at a time — two writers would each pass the size check before
 * writing at the same offset, and an `open()` would cut the live writer's half-written batch as a
 * torn tail. A lock whose owner is gone (a crashed process on this host) is taken over; one held by
 * a live process (or by this process: another store or agent) is refused with SESSION_LOCKED.
 * Not taken through the store's injectable file system: the lock is not part of the log.
 */
export async function acquireSessionLock(file: string, id: string): Promise<SessionLock> {
  const path = `${file}.lock`
  const token = randomUUID()
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    let created = false
    try {
      const handle = await open(path, 'wx', 0o600)
      created = true
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), token, ...(BOOT_ID === undefined ? {} : { boot: BOOT_ID }) } satisfies LockOwner))
      } finally {
        await handle.close()
      }
      ownTokens.add(token)
      return ownLock(path, id, token)
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') {
        // A lock file created but not written would read as held forever: remove it.
        if (created) await unlink(path).catch(() => {})
        throw new BosunError(ErrorCodes.STORE, `Could not take the write lock of session "${id}" (${path}): ${(error as Error).message}`, {
          cause: error, details: { sessionId: id, file: path },
        })
      }
    }
    const owner = await readOwner(path, id)
    if (owner === 'gone') continue // released meanwhile: try again
    if (owner === 'unknown' ? (await ageMs(path)) < UNWRITTEN_GRACE_MS : isAlive(owner)) {
      throw locked(id, path, owner === 'unknown' ? undefined : owner)
    }
    // Left by a process that is gone (or never written by one that died creating it): take it over.
    if (!(await removeStale(path, id, owner))) await delay(RETRY_MS)
  }
  throw locked(id, path, undefined)
}

/**
 * Whether a live process holds the lock of `file` (`<file>.lock`): false when there is no lock
 * file or its owner is gone. A lock file that cannot be read as one (a link, a special file, one
 * being written) counts as held: whatever it guards is left alone.
 */
export async function lockHolderAlive(file: string): Promise<boolean> {
  const path = `${file}.lock`
  let owner: LockOwner | 'unknown' | 'gone'
  try {
    owner = await readOwner(path, file)
  } catch {
    return true
  }
  if (owner === 'gone') return false
  if (owner === 'unknown') return (await ageMs(path)) < UNWRITTEN_GRACE_MS
  return isAlive(owner)
}

/** Tries before giving up (another process taking the same stale lock over, a lock released meanwhile). */
const MAX_ATTEMPTS = 5
const RETRY_MS = 20
/** A lock file still empty (or unreadable) this long after its last change was left by a process that died creating it. */
const UNWRITTEN_GRACE_MS = 10_000

function ownLock(path: string, id: string, token: string): SessionLock {
  let released = false
  let identity: string | undefined
  return {
    path,
    identify(fileIdentity) {
      const holder = heldFiles.get(fileIdentity)
      if (holder !== undefined && holder !== token) throw lockedElsewhere(id, path)
      heldFiles.set(fileIdentity, token)
      identity = fileIdentity
    },
    async release() {
      if (released) return
      released = true
      ownTokens.delete(token)
      if (identity !== undefined && heldFiles.get(identity) === token) heldFiles.delete(identity)
      // Removed only if it is still this very lock (it may have been deleted by hand and retaken since).
      const owner = await readOwner(path, id).catch(() => 'unknown' as const)
      if (typeof owner === 'object' && owner.token === token) await unlink(path).catch(() => {})
    },
  }
}

/**
 * Removes a stale lock, if it is still the very one found stale: under a `<lock>.takeover` file
 * created exclusively, so that two processes finding the same stale lock cannot both remove it —
 * the second would remove the first one's new lock, and both would write. Resolves false when
 * another process is taking over (the caller retries).
 */
async function removeStale(path: string, id: string, stale: LockOwner | 'unknown'): Promise<boolean> {
  const sentinel = `${path}.takeover`
  try {
    await (await open(sentinel, 'wx', 0o600)).close()
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    // A takeover sentinel outlives its process only if that process died in these few lines.
    if ((await ageMs(sentinel)) > UNWRITTEN_GRACE_MS) await unlink(sentinel).catch(() => {})
    return false
  }
  try {
    const now = await readOwner(path, id)
    // The same stale lock: the same owner, or still unwritten and still old (not a new one being written).
    const same = stale === 'unknown'
      ? now === 'unknown' && (await ageMs(path)) >= UNWRITTEN_GRACE_MS
      : typeof now === 'object' && now.token === stale.token && now.pid === stale.pid
    if (same) await unlink(path).catch(() => {})
    return true
  } finally {
    await unlink(sentinel).catch(() => {})
  }
}

/** A lock file Bosun writes is one short line of JSON; more than this is not one. */
const MAX_LOCK_BYTES = 4096
/**
 * A lock file is read without following a link and without blocking (a FIFO planted as the
 * lock would otherwise wait for a writer forever, and a link to /dev/zero read forever).
 */
const { O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = fsConstants
const LOCK_READ_FLAGS = process.platform === 'win32' || O_NOFOLLOW === undefined ? 'r' : O_RDONLY | O_NOFOLLOW | O_NONBLOCK

/**
 * The owner written in the lock file; `unknown` while it is being written (or unreadable);
 * `gone` when there is no lock file. Throws UNSAFE_STORE_FILE for a link or a special file.
 */
async function readOwner(path: string, id: string): Promise<LockOwner | 'unknown' | 'gone'> {
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(path, LOCK_READ_FLAGS)
  } catch (error) {
    const code = errnoCode(error)
    if (code === 'ELOOP' || code === 'EMLINK') throw unsafeLockFile(path, id, 'symbolic link')
    return code === 'ENOENT' ? 'gone' : 'unknown'
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw unsafeLockFile(path, id, specialKind(stat))
    const buffer = Buffer.alloc(MAX_LOCK_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, MAX_LOCK_BYTES, 0)
    const owner = JSON.parse(buffer.toString('utf8', 0, bytesRead)) as Partial<LockOwner>
    if (!Number.isSafeInteger(owner.pid) || typeof owner.host !== 'string') return 'unknown'
    return {
      pid: owner.pid!, host: owner.host,
      ...(typeof owner.token === 'string' ? { token: owner.token } : {}),
      ...(typeof owner.boot === 'string' ? { boot: owner.boot } : {}),
    }
  } catch (error) {
    if (BosunError.is(error)) throw error
    return 'unknown'
  } finally {
    await handle.close().catch(() => {})
  }
}

/** Milliseconds since the file (not a link's target) last changed; 0 if it is gone: nothing to wait for. */
async function ageMs(path: string): Promise<number> {
  try {
    return Date.now() - (await lstat(path)).mtimeMs
  } catch {
    return 0
  }
}

function isAlive(owner: LockOwner): boolean {
  // Another host's process cannot be checked from here: assume it is alive.
  if (owner.host !== hostname()) return true
  // Written before this machine last booted: its process is gone, even if its pid was reused since.
  if (owner.boot !== undefined && BOOT_ID !== undefined && owner.boot !== BOOT_ID) return false
  // This process: alive if it still holds that very lock (else a previous process had this pid).
  if (owner.pid === process.pid) return owner.token !== undefined && ownTokens.has(owner.token)
  try {
    process.kill(owner.pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === 'EPERM' // alive, but another user's
  }
}

function locked(id: string, path: string, owner: LockOwner | undefined): BosunError {
  const who = owner === undefined
    ? 'another process'
    : owner.pid === process.pid && owner.host === hostname()
      ? 'this process (another agent or store has it open)'
      : `process ${owner.pid} on ${owner.host}`
  return new BosunError(
    ErrorCodes.SESSION_LOCKED,
    `Session "${id}" is open for writing in ${who}. Close it there first (a session has one writer at a time); ` +
      `to read it meanwhile, fork it or use \`bosun log\`. If no such process is running, delete ${path}.`,
    { details: { sessionId: id, file: path, ...(owner ? { pid: owner.pid, host: owner.host } : {}) } },
  )
}

/** The same file is written by this process under another path (see {@link heldFiles}). */
function lockedElsewhere(id: string, path: string): BosunError {
  return new BosunError(
    ErrorCodes.SESSION_LOCKED,
    `Session "${id}" is already open for writing in this process under another path: the same file, reached through a linked folder or moved while open. ` +
      'Close it there first (a session has one writer at a time); to read it meanwhile, fork it or use `bosun log`.',
    { details: { sessionId: id, file: path, pid: process.pid, host: hostname() } },
  )
}
