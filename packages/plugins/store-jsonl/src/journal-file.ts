import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { syncDirectory, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { JOURNAL_PREFIX } from './journal-format.js'
import { acquireSessionLock, type SessionLock } from './lock.js'
import { step } from './steps.js'

/** A store journal's file (journal.ts): created on a store's first flush, deleted at its close or when it is retired. */
export interface JournalFile {
  path: string
  handle: StoreFileHandle
  lock: SessionLock
}

/**
 * Creates a journal: lock, file (O_EXCL, 0600), then the folder's fsync, so that its name
 * survives a crash — which also makes durable the deletion of a journal retired before it.
 * Errors are marked with their step.
 */
export async function createJournalFile(fs: StoreFileSystem, dir: string): Promise<JournalFile> {
  const path = join(dir, JOURNAL_PREFIX + randomUUID())
  const lock = await step('lock of the store journal', () => acquireSessionLock(path, 'journal'))
  let handle: StoreFileHandle | undefined
  try {
    handle = await step('open of the store journal', () => fs.open(path, 'wx', 0o600))
    await step('fsync of the directory (creating the store journal)', () => syncDirectory(fs, dir))
  } catch (error) {
    await handle?.close().catch(() => {})
    if (handle) await fs.unlink(path).catch(() => {})
    await lock.release()
    throw error
  }
  return { path, handle, lock }
}

/**
 * Deletes a journal whose records must never be replayed: unlink, then the folder's fsync (until
 * that, a crash can bring the name back). Resolves `'durable'` or `'unlinked'` (the fsync failed:
 * the next journal's creation fsyncs the folder again); rejects, the file kept, if the unlink fails.
 * The file is closed and the lock released in every case but that one.
 */
export async function deleteJournalFile(fs: StoreFileSystem, dir: string, journal: JournalFile): Promise<'durable' | 'unlinked'> {
  await step('unlink of the store journal', () => fs.unlink(journal.path))
  await journal.handle.close().catch(() => {})
  const synced = await syncDirectory(fs, dir).then(() => true, () => false)
  await journal.lock.release()
  return synced ? 'durable' : 'unlinked'
}
