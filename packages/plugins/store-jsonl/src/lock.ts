import { open, readFile, stat, unlink } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode } from './file-system.js'

/**
 * Lock files held by this process, with the token each holds: a second store (or agent) of the
 * same process is refused too, and a release removes only a lock that is still its own.
 */
const held = new Map<string, string>()

/** Who holds a lock, as its file says. */
interface LockOwner {
  pid: number
  host: string
  token?: string
}

export interface SessionLock {
  readonly path: string
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
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), token } satisfies LockOwner))
      } finally {
        await handle.close()
      }
      held.set(path, token)
      return ownLock(path, token)
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') {
        // A lock file created but not written would read as held forever: remove it.
        if (created) await unlink(path).catch(() => {})
        throw new BosunError(ErrorCodes.STORE, `Could not take the write lock of session "${id}" (${path}): ${(error as Error).message}`, {
          cause: error, details: { sessionId: id, file: path },
        })
      }
    }
    const owner = await readOwner(path)
    if (owner === 'gone') continue // released meanwhile: try again
    if (owner === 'unknown' ? (await ageMs(path)) < UNWRITTEN_GRACE_MS : isAlive(owner, path)) {
      throw locked(id, path, owner === 'unknown' ? undefined : owner)
    }
    // Left by a process that is gone (or never written by one that died creating it): take it over.
    if (!(await removeStale(path, owner))) await delay(RETRY_MS)
  }
  throw locked(id, path, undefined)
}

/** Tries before giving up (another process taking the same stale lock over, a lock released meanwhile). */
const MAX_ATTEMPTS = 5
const RETRY_MS = 20
/** A lock file still empty (or unreadable) this long after its last change was left by a process that died creating it. */
const UNWRITTEN_GRACE_MS = 10_000

function ownLock(path: string, token: string): SessionLock {
  let released = false
  return {
    path,
    async release() {
      if (released) return
      released = true
      if (held.get(path) !== token) return // deleted by hand and taken by another writer since
      held.delete(path)
      const owner = await readOwner(path)
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
async function removeStale(path: string, stale: LockOwner | 'unknown'): Promise<boolean> {
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
    const now = await readOwner(path)
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

/** The owner written in the lock file; `unknown` while it is being written (or unreadable); `gone` when there is no lock file. */
async function readOwner(path: string): Promise<LockOwner | 'unknown' | 'gone'> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>
    if (!Number.isSafeInteger(owner.pid) || typeof owner.host !== 'string') return 'unknown'
    return { pid: owner.pid!, host: owner.host, ...(typeof owner.token === 'string' ? { token: owner.token } : {}) }
  } catch (error) {
    return errnoCode(error) === 'ENOENT' ? 'gone' : 'unknown'
  }
}

/** Milliseconds since the file last changed (0 if it is gone: nothing to wait for). */
async function ageMs(path: string): Promise<number> {
  try {
    return Date.now() - (await stat(path)).mtimeMs
  } catch {
    return 0
  }
}

function isAlive(owner: LockOwner, path: string): boolean {
  // Another host's process cannot be checked from here: assume it is alive.
  if (owner.host !== hostname()) return true
  // This process: alive if it still holds that very lock (else a previous process had this pid).
  if (owner.pid === process.pid) return owner.token !== undefined && held.get(path) === owner.token
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
