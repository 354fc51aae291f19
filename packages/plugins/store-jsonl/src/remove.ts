import { hostname } from 'node:os'
import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode, syncDirectory, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { crc32 } from './journal-format.js'
import { recordsForOpen, replayIntoFile } from './recovery.js'
import { headerCrcOf } from './replay.js'
import { writeRemovalRecord } from './removal-record.js'
import { readFirstLineBytes } from './session-file.js'
import { atStep, step, stepOf } from './steps.js'
import { summaryPath } from './summary-file.js'
import { validLengthPath } from './valid-length.js'

/**
 * Removing a session (`remove()`), once the store holds its lock and has its file open as
 * `handle`: no writer of it exists anywhere, and none can start until the lock is released.
 *
 * 1. What other processes' journals acknowledged for it goes into its file (as `open()` replays
 *    it), and the file is fdatasynced: from step 2 on no replay brings those records back, so a
 *    crash before the file is gone must leave a whole session, not one missing its last events.
 * 2. The record of its removal (removal-record.ts), durable: the journals' records of it are never
 *    replayed again, not even into a session created later under its id with the same header.
 * 3. Its file, its list summary (and one being written), its record of a valid length: unlinked.
 *
 * The caller releases the lock (its lock file is deleted) and then fsyncs the folder: the
 * deletions are durable once `remove()` resolves.
 */
export async function deleteSessionFiles(fs: StoreFileSystem, dir: string, file: string, id: string, handle: StoreFileHandle, ownJournal: string | undefined): Promise<void> {
  let current = 'read of the store journals'
  try {
    const records = await recordsForOpen(fs, dir, id, ownJournal)
    let headerCrc: number | undefined
    if (records.length > 0) {
      current = 'replay of the store journal'
      headerCrc = headerCrcOf(await replayIntoFile(handle, await handle.readFile(), records))
    } else {
      current = 'read'
      const line = await readFirstLineBytes(handle)
      headerCrc = line === undefined ? undefined : crc32(line)
    }
    current = 'fdatasync'
    await handle.datasync()
    current = 'recording the removal'
    await writeRemovalRecord(fs, dir, file, headerCrc)
    current = 'unlink'
    await fs.unlink(file)
    for (const path of [summaryPath(file), `${summaryPath(file)}.tmp`, validLengthPath(file)]) {
      await step(`unlink of ${path.slice(dir.length + 1)}`, () => unlinkIfThere(fs, path))
    }
  } catch (error) {
    throw BosunError.is(error) ? error : removeError(stepOf(error, current), file, id, error)
  }
}

/** The folder's fsync that makes the removal durable (after the lock file is gone too). */
export async function syncRemoval(fs: StoreFileSystem, dir: string, file: string, id: string): Promise<void> {
  try {
    await syncDirectory(fs, dir)
  } catch (error) {
    throw removeError('fsync of the directory', file, id, error)
  }
}

async function unlinkIfThere(fs: StoreFileSystem, path: string): Promise<void> {
  try {
    await fs.unlink(path)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw atStep(error, 'unlink')
  }
}

/** The STORE error of a removal that failed at `step`. */
export function removeError(failed: string, file: string, id: string, cause: unknown): BosunError {
  const code = errnoCode(cause)
  return new BosunError(
    ErrorCodes.STORE,
    `Could not remove session "${id}" (${file}): ${failed} failed: ${(cause as Error)?.message ?? String(cause)}. ` +
      'Check the folder (space, permissions), then remove it again: what was already deleted stays deleted, and the rest goes then.',
    { cause, details: { sessionId: id, file, step: failed, ...(code ? { errno: code } : {}) } },
  )
}

/** SESSION_LOCKED from the session's lock, said for a removal: who has it open, and to close it there first. */
export function lockedForRemoval(error: BosunError, id: string): BosunError {
  const { pid, host, file } = (error.details ?? {}) as { pid?: number; host?: string; file?: string }
  const who = pid === undefined
    ? 'another process'
    : pid === process.pid && host === hostname()
      ? 'this process (an agent or a store has it open)'
      : `process ${pid} on ${host}`
  return new BosunError(
    ErrorCodes.SESSION_LOCKED,
    `Session "${id}" cannot be removed: it is open for writing in ${who}. Close it there first, then remove it` +
      (file ? ` (if no such process is running, delete ${file}).` : '.'),
    { cause: error, details: error.details ?? { sessionId: id } },
  )
}
