import { basename, dirname, join } from 'node:path'
import { assertSessionId } from '@bosun/core'
import { FILE_SUFFIX } from './format.js'
import { errnoCode, syncDirectory, type StoreFileSystem } from './file-system.js'
import { writeFully } from './file-writes.js'
import { isJournalName, type JournalRecord } from './journal-format.js'
import { acquireSessionLock } from './lock.js'
import { step } from './steps.js'

/**
 * What keeps a removed session removed: `<dir>/.bosun-removed-<id>`, written by `remove()`
 * before it deletes the session's file, while store journals in the folder may still hold
 * records of that session (journal.ts: a journal keeps its records until its next checkpoint or
 * its store's close, and a process killed before then leaves them to be replayed).
 *
 * Replay already skips a record written for another header line (journal-format.ts), but a
 * session created again under the same id with the very same header (same `createdAt`, as a
 * caller may give) has the same header crc: the removed session's records would be replayed into
 * it — after a crash, or by any `open()`, which replays other journals' records — and its events
 * would come back in the new session. So the record holds the header crcs of the removed
 * incarnations of the id, and every replay (recovery.ts, `open`, `read`, `list`, the sweep) drops
 * the id's journal records with one of them. A session created or opened under an id whose record
 * names its header crc is written WITHOUT the journal (an fdatasync of its own file per batch):
 * its own records would be indistinguishable from the removed ones, and dropped.
 *
 * It also lists the journals that were in the folder when the session was removed (the only
 * ones that can hold its records: no writer of it exists once it is removed). Once none of them
 * exists any more — each deleted at its store's close, or swept after its process died — no
 * record of the removed session is left anywhere, and the sweep deletes the record. No journal in
 * the folder at removal: no record is written at all. A leading dot, as every store file that is
 * not a session: never a session id, never listed.
 */
const REMOVED_PREFIX = '.bosun-removed-'
/**
 * A record being written, renamed over the record once durable. Its own prefix, not a suffix: a
 * suffix such as `.tmp` is also how an id (`a.tmp`) can end, and would name another id's record.
 */
const WRITING_PREFIX = '.bosun-removing-'

export interface RemovalRecord {
  /** crc32 of the header lines of the sessions removed under this id. */
  headerCrcs: number[]
  /** Names of the journals (in the same folder) that may hold their records. */
  journals: string[]
}

/** The record's path for the session file `file` (`<dir>/<id>.jsonl`): the `~` keeps an id ending in a dot apart on Windows (valid-length.ts). */
export function removalPath(file: string, prefix = REMOVED_PREFIX): string {
  const id = basename(file, FILE_SUFFIX)
  return join(dirname(file), prefix + id + (id.endsWith('.') ? '~' : ''))
}

export function isRemovalName(name: string): boolean {
  return name.startsWith(REMOVED_PREFIX)
}

/** The session id a record's name (or a record being written's) is for; undefined for another file. */
function idOfRemovalName(name: string): string | undefined {
  const prefix = [REMOVED_PREFIX, WRITING_PREFIX].find((start) => name.startsWith(start))
  if (prefix === undefined) return undefined
  const id = name.slice(prefix.length)
  const named = id.endsWith('~') ? id.slice(0, -1) : id
  try {
    assertSessionId(named)
    return named
  } catch {
    return undefined
  }
}

/**
 * The removal record of `file`, if any. Rejects when it cannot be read (a replay that went on
 * without it could bring a removed session's events back); a torn one — a crash while a store
 * without `rename` wrote it, before its session was deleted — is none.
 */
export async function readRemovalRecord(fs: StoreFileSystem, file: string): Promise<RemovalRecord | undefined> {
  let text: string
  try {
    const handle = await fs.open(removalPath(file), 'r')
    try {
      text = (await handle.readFile()).toString('utf8')
    } finally {
      await handle.close().catch(() => {})
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
  try {
    const value = JSON.parse(text) as { bosun?: unknown; headerCrcs?: unknown; journals?: unknown }
    if (value.bosun !== 'removed' || !Array.isArray(value.headerCrcs) || !Array.isArray(value.journals)) return undefined
    return {
      headerCrcs: value.headerCrcs.filter((crc): crc is number => Number.isSafeInteger(crc)),
      journals: value.journals.filter((name): name is string => typeof name === 'string' && isJournalName(name)),
    }
  } catch {
    return undefined
  }
}

/** The header crcs of the sessions removed under `id` in `dir` (empty when none). */
export async function removedHeaderCrcs(fs: StoreFileSystem, dir: string, id: string): Promise<Set<number>> {
  return new Set((await readRemovalRecord(fs, join(dir, id + FILE_SUFFIX)))?.headerCrcs)
}

/** `records` (of session `id`) without those of removed sessions of that id. */
export async function withoutRemoved(fs: StoreFileSystem, dir: string, id: string, records: JournalRecord[]): Promise<JournalRecord[]> {
  if (records.length === 0) return records
  const removed = await removedHeaderCrcs(fs, dir, id)
  return removed.size === 0 ? records : records.filter((record) => !removed.has(record.headerCrc))
}

/**
 * Records, durably, that the session of `file` whose header line has crc `headerCrc` is being
 * removed, merged with what an earlier record of the id says: written to `.bosun-removing-<id>`, fsynced,
 * renamed over the record, then the folder fsynced — before the session's file is deleted. Without
 * any journal that could hold records of it, nothing is written (and an earlier record is kept).
 */
export async function writeRemovalRecord(fs: StoreFileSystem, dir: string, file: string, headerCrc: number | undefined): Promise<void> {
  const names = await step('readdir (listing the store journals)', () => fs.readdir(dir))
  const present = new Set(names.filter(isJournalName))
  const previous = await step('read of the removal record', () => readRemovalRecord(fs, file))
  const journals = [...new Set([...(previous?.journals ?? []), ...present])].filter((name) => present.has(name))
  if (journals.length === 0) return
  const headerCrcs = [...new Set([...(previous?.headerCrcs ?? []), ...(headerCrc === undefined ? [] : [headerCrc])])]
  const bytes = Buffer.from(JSON.stringify({ bosun: 'removed', headerCrcs, journals } satisfies RemovalRecord & { bosun: string }) + '\n', 'utf8')
  const path = removalPath(file)
  const name = basename(path)
  // Renamed over the old record: a crash leaves the old one or the new one, never neither.
  const target = fs.rename ? removalPath(file, WRITING_PREFIX) : path
  await step(`unlink of ${basename(target)}`, () => fs.unlink(target).catch((error: unknown) => (errnoCode(error) === 'ENOENT' ? undefined : Promise.reject(error))))
  const handle = await step(`open of ${basename(target)}`, () => fs.open(target, 'wx', 0o600))
  try {
    await step(`write of ${basename(target)}`, () => writeFully(handle, bytes, 0))
    await step(`fsync of ${basename(target)}`, () => handle.sync())
  } finally {
    await handle.close().catch(() => {})
  }
  if (fs.rename) await step(`rename of ${basename(target)} to ${name}`, () => fs.rename!(target, path))
  await step(`fsync of the directory (recording ${name})`, () => syncDirectory(fs, dir))
}

/**
 * Deletes the removal records none of whose journals exists any more (see above), each under its
 * session's lock (a `remove()` of that id may be merging into it); a session whose lock is held
 * keeps its record until a later sweep. Not durable: a record that comes back after a crash
 * names journals that are gone, and is deleted again. Never rejects.
 */
export async function sweepRemovalRecords(fs: StoreFileSystem, dir: string): Promise<void> {
  let names: string[]
  try {
    names = await fs.readdir(dir)
  } catch {
    return
  }
  const ids = new Set(names.map(idOfRemovalName).filter((id): id is string => id !== undefined))
  for (const id of ids) {
    const file = join(dir, id + FILE_SUFFIX)
    try {
      const lock = await acquireSessionLock(file, id)
      try {
        // The journals as they are now, under the lock: a remove() that finished since the listing
        // above may have written a record naming a journal made after it.
        const journals = new Set((await fs.readdir(dir)).filter(isJournalName))
        const record = await readRemovalRecord(fs, file)
        // A record being written exists only while a remove() holds this lock: one found here was left by a crash.
        await fs.unlink(removalPath(file, WRITING_PREFIX)).catch(() => {})
        if (record !== undefined && !record.journals.some((journal) => journals.has(journal))) await fs.unlink(removalPath(file))
      } finally {
        await lock.release()
      }
    } catch {
      // Locked or unreadable: kept, for a later sweep.
    }
  }
}
