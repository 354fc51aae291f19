import { join } from 'node:path'
import { unlink } from 'node:fs/promises'
import { errnoCode, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { decodeRecords, isJournalName, type JournalRecord } from './journal-format.js'
import { lockHolderAlive } from './lock.js'
import { replayRecords, type Replayed } from './replay.js'
import { writeFully } from './file-writes.js'
import { removedHeaderCrcs } from './removal-record.js'

/**
 * Crash recovery from the journals of dead processes (journal.ts). A journal whose lock has no
 * live owner holds the batches its process acknowledged but may not have made durable in their
 * session files. Two paths use it:
 *
 * - Opening a session (`open`, under the session's lock; `read`, in memory only) replays that
 *   session's records from every dead journal into the file's content before parsing it.
 * - A sweep, once per store, replays every session of every dead journal (each under its own
 *   session lock) and deletes the journal — only if it could replay every one of its sessions: a
 *   session locked by a live process was opened, and so replayed, by that process; the journal is
 *   kept until a later sweep, so that no record is deleted that an opener might still need.
 *
 * Replaying is idempotent (replay.ts): records already in the file change nothing. Records of a
 * removed session are never replayed, not even into a session created again under its id with the
 * same header line (removal-record.ts).
 */

/** The paths of every journal in `dir`, in name order. */
async function journalsIn(fs: StoreFileSystem, dir: string): Promise<string[]> {
  let names: string[]
  try {
    names = await fs.readdir(dir)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return []
    throw error
  }
  return names.filter(isJournalName).sort().map((name) => join(dir, name))
}

/** The paths of the journals in `dir` whose owner is gone. */
export async function deadJournals(fs: StoreFileSystem, dir: string): Promise<string[]> {
  const dead: string[] = []
  for (const path of await journalsIn(fs, dir)) if (!(await lockHolderAlive(path))) dead.push(path)
  return dead
}

/**
 * The records of session `id` from every journal in `dir` but `except` (the opener's own), for
 * `open`, which holds the session's lock: whatever process wrote them no longer writes this
 * session, so its records are replayed whether or not it looks alive. A dead owner can look alive
 * — its pid reused by another process of this boot, or a lock written under another host name (a
 * container restarted with a new one) — and its acknowledged batches must not be skipped then.
 * Replaying the records of an owner that is alive and closed the session changes nothing: its
 * close made them durable in the file, and replay leaves equal bytes as they are.
 */
export async function recordsForOpen(fs: StoreFileSystem, dir: string, id: string, except: string | undefined): Promise<JournalRecord[][]> {
  const paths = (await journalsIn(fs, dir)).filter((path) => path !== except)
  return recordsOf(fs, dir, paths, id)
}

/** The intact records of a journal; none if it is gone or is not a regular file (never followed if a link). */
export async function readJournal(fs: StoreFileSystem, path: string): Promise<JournalRecord[]> {
  let handle
  try {
    handle = await fs.open(path, 'r')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ELOOP' || errnoCode(error) === 'EMLINK') return []
    throw error
  }
  try {
    const stat = await handle.stat()
    if (typeof stat.isFile === 'function' && !stat.isFile()) return []
    return decodeRecords(await handle.readFile()).records
  } finally {
    await handle.close().catch(() => {})
  }
}

/** The records of session `id`, journal by journal (each in its journal's order), from every dead journal in `dir`. */
export async function deadRecordsOf(fs: StoreFileSystem, dir: string, id: string): Promise<JournalRecord[][]> {
  return recordsOf(fs, dir, await deadJournals(fs, dir), id)
}

/** The records of every session in the dead journals of `dir`, by session, as {@link deadRecordsOf} gives them for one (for `list()`). */
export async function deadRecordsBySession(fs: StoreFileSystem, dir: string): Promise<Map<string, JournalRecord[][]>> {
  const bySession = new Map<string, JournalRecord[][]>()
  for (const path of await deadJournals(fs, dir)) {
    for (const [id, records] of bySessionId(await readJournal(fs, path))) bySession.set(id, [...(bySession.get(id) ?? []), records])
  }
  for (const [id, journals] of bySession) {
    const removed = await removedHeaderCrcs(fs, dir, id)
    if (removed.size === 0) continue
    const kept = journals.map((records) => records.filter((record) => !removed.has(record.headerCrc))).filter((records) => records.length > 0)
    if (kept.length > 0) bySession.set(id, kept)
    else bySession.delete(id)
  }
  return bySession
}

/** One journal's records grouped by session, each session's in journal order. */
function bySessionId(records: readonly JournalRecord[]): Map<string, JournalRecord[]> {
  const bySession = new Map<string, JournalRecord[]>()
  for (const record of records) {
    const list = bySession.get(record.id)
    if (list) list.push(record)
    else bySession.set(record.id, [record])
  }
  return bySession
}

async function recordsOf(fs: StoreFileSystem, dir: string, paths: readonly string[], id: string): Promise<JournalRecord[][]> {
  const result: JournalRecord[][] = []
  if (paths.length === 0) return result
  const removed = await removedHeaderCrcs(fs, dir, id)
  for (const path of paths) {
    const records = (await readJournal(fs, path)).filter((record) => record.id === id && !removed.has(record.headerCrc))
    if (records.length > 0) result.push(records)
  }
  return result
}

/** Replays several journals' records of one session into its file's content, one journal after the other. */
export function replayAll(file: Buffer, journals: readonly (readonly JournalRecord[])[]): Replayed | undefined {
  let result: Replayed | undefined
  for (const records of journals) {
    const next = replayRecords(result?.bytes ?? file, records)
    if (next) result = { bytes: next.bytes, from: Math.min(next.from, result?.from ?? Infinity) }
  }
  return result
}

/**
 * Replays one session's records into its file under its lock: `done`, or `busy` if the session
 * could not be taken. It drops the records of a removed session itself, under that lock: a record
 * of removal read before it could be written meanwhile.
 */
export type ReplaySession = (id: string, records: JournalRecord[]) => Promise<'done' | 'busy'>

/**
 * Replays every dead journal of `dir` with `replay` and deletes those whose every session was
 * replayed (then their stale lock file). Errors leave a journal in place for a later sweep.
 */
export async function sweepDeadJournals(fs: StoreFileSystem, dir: string, replay: ReplaySession): Promise<void> {
  for (const path of await deadJournals(fs, dir)) {
    const bySession = bySessionId(await readJournal(fs, path))
    let complete = true
    for (const [id, records] of bySession) {
      if ((await replay(id, records).catch(() => 'busy' as const)) === 'busy') complete = false
    }
    if (!complete) continue
    await fs.unlink(path).catch(() => {})
    // The lock file is not part of the store's file system (lock.ts), nor is removing it.
    await unlink(`${path}.lock`).catch(() => {})
  }
}

/**
 * Replays the dead journals' records of session `id` into its open file, whose content is
 * `bytes`: writes what differs, cuts the file to the replayed length and fdatasyncs it. Returns
 * the file's content after replay (`bytes` itself when nothing was missing).
 */
export async function replayIntoFile(
  handle: StoreFileHandle, bytes: Buffer, journals: readonly (readonly JournalRecord[])[],
): Promise<Buffer> {
  const replayed = replayAll(bytes, journals)
  if (replayed === undefined) return bytes
  await writeFully(handle, replayed.bytes.subarray(replayed.from), replayed.from)
  await handle.truncate(replayed.bytes.length)
  await handle.datasync()
  return replayed.bytes
}
