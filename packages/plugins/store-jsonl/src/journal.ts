import type { StoreFileHandle, StoreFileSystem } from './file-system.js'
import { sealRecord } from './journal-format.js'
import { createJournalFile, deleteJournalFile, type JournalFile } from './journal-file.js'
import { overwriteWithZeros, writeFully, writeFullySync } from './file-writes.js'
import { atStep, renameStep, step, stepOf } from './steps.js'
import { newGroup, type Group, type JournalGroup, type JournalMember } from './journal-group.js'
import { CHECKPOINT_BYTES, journalRoom, journalTuning } from './journal-space.js'

export type { JournalGroup, JournalMember } from './journal-group.js'
export { EXTEND_BYTES, journalTuning } from './journal-space.js'

/**
 * The store's journal: one file per store per process, `<dir>/.bosun-journal-<uuid>`, locked
 * like a session file (`<journal>.lock`). A commit round writes every member's batch to its own
 * session file (page cache only) and stages a record of it here (journal-format.ts); the first
 * member to ask for durability writes all the staged records with one write and fdatasyncs the
 * journal ONCE for all of them. That one sync is what every session of the round waits for:
 * fdatasyncs are per file, so sessions can only share one if their bytes are in the same file.
 *
 * A flush starts only after the previous one has settled, so the records staged meanwhile go
 * together in the next one (group commit), and only the last flush's records can be torn by a
 * crash. A failed flush is cut back off the journal (ftruncate + fdatasync) before it is rejected
 * to every member of it, which roll their own files back: its records must not be replayed after
 * a crash, since every member reports its batch as rolled back. If the journal cannot be cut, the
 * flush's bytes are overwritten with zeros instead (what a reader takes for the journal's end);
 * if that fails too, the journal is **retired**: every session file journaled since the last
 * checkpoint is fdatasynced (the journal's acknowledged records are then durable in their files),
 * the file is deleted and the folder fsynced, and the next flush creates a new journal — no
 * `open()` can replay the failed records. Only if that is not possible (a file cannot be synced,
 * a closed member's records are still needed, the unlink fails) are the members told their batch
 * may come back after a crash ({@link recordsLeftOf}), and the next flush writes nothing before
 * it has cut them off (or retired the journal).
 *
 * Checkpoint: once the journal holds {@link CHECKPOINT_BYTES}, the next flush first fdatasyncs
 * every session file written since the last checkpoint (all at once), then starts the journal
 * over from its first byte in the next **generation** — its records are in durable session files
 * now. A writer that closes fdatasyncs its own file first ({@link release}); the store's
 * `close()` deletes the journal once every writer did. After a crash the journal's owner is dead,
 * and recovery.ts replays it. The file is grown ahead of its writes and reused from its start
 * after a checkpoint: journal-space.ts says why.
 */
/** The step of the store journal that `error` (from {@link StoreJournal.sync}) failed at. */
export function journalStep(error: unknown): string {
  return stepOf(error, 'fdatasync of the store journal')
}

export class StoreJournal {
  readonly #dir: string
  readonly #fs: StoreFileSystem
  readonly #checkpointBytes: number
  #opening: Promise<JournalFile> | undefined
  /** The journal file once created (until retired). */
  #file: JournalFile | undefined
  /** Bytes of intact, durable records of the current generation, from the journal's start. */
  #size = 0
  /** Bytes the file has (zeros, or records of this or an earlier generation) that flushes overwrite. */
  #allocated = 0
  /** Written into every record; a checkpoint moves to the next, then writes from the start again. */
  #generation = 0
  #pending = newGroup()
  #flushing: Promise<void> | undefined
  /** Members whose journaled bytes may not be durable in their own session file yet. */
  #dirty = new Set<JournalMember>()
  /** A member closed without its file synced: the records stay needed, the journal is kept. */
  #keep = false
  /**
   * Bytes past {@link #size} that a failed flush wrote (or may have) and that could be neither cut
   * nor overwritten: they may hold whole records, replayable after a crash. 0 when there are none.
   */
  #leftover = 0
  /**
   * The members whose records those {@link #leftover} bytes hold; also, after a retired journal's
   * folder fsync failed (a crash could bring its name back), those of its failed flush until a
   * new journal's creation fsyncs the folder.
   */
  #leftoverMembers = new Set<JournalMember>()
  /** A retired journal's deletion is not durable yet (see {@link #leftoverMembers}). */
  #unlinkPending = false
  /** The journal length that calls for the next checkpoint (further after a failed one: not a retry per flush). */
  #checkpointAt: number

  constructor(dir: string, fs: StoreFileSystem, checkpointBytes = journalTuning.checkpointBytes) {
    this.#dir = dir
    this.#fs = fs
    this.#checkpointBytes = checkpointBytes
    this.#checkpointAt = checkpointBytes
  }

  /** @internal For tests: the journal's path once it exists. */
  get path(): string | undefined {
    return this.#file?.path
  }

  /**
   * Whether a failed flush's records of `member` may still be in the journal (replayable after a
   * crash) until a later flush cuts them off. A member that was not in that flush has none there,
   * even if its own flush is refused because of them (its records were never written).
   */
  recordsLeftOf(member: JournalMember): boolean {
    return (this.#leftover > 0 || this.#unlinkPending) && this.#leftoverMembers.has(member)
  }

  /** Stages `record` (a batch `member` has written to its file) for the next flush. */
  stage(member: JournalMember, record: Buffer): JournalGroup {
    this.#dirty.add(member)
    this.#pending.chunks.push(record)
    this.#pending.members.push(member)
    return this.#pending
  }

  /** Resolves once `group`'s records are durable in the journal; starts its flush if none is running. */
  sync(group: JournalGroup): Promise<void> {
    if (!(group as Group).started && this.#flushing === undefined) this.#start()
    return group.done
  }

  /**
   * A member closes: after its own file's fdatasync (`synced`) its records are no longer needed;
   * without it they are, and the journal is kept for recovery instead of deleted.
   */
  release(member: JournalMember, synced: boolean): void {
    this.#dirty.delete(member)
    if (!synced) this.#keep = true
  }

  /**
   * After every member was released: deletes the journal (its records are all in durable session
   * files), or — if some are not — leaves it to be replayed. Then drops the lock.
   */
  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => {})
    const file = await this.#opening?.catch(() => undefined)
    if (file === undefined) return
    // A kept journal is replayed after the process is gone: not with a failed flush's records.
    if (this.#leftover > 0 && (await this.#removeLeftover(file).catch(() => false))) return
    await file.handle.close().catch(() => {})
    if (!this.#keep && this.#dirty.size === 0) await this.#fs.unlink(file.path).catch(() => {})
    await file.lock.release()
  }

  #start(): void {
    const group = this.#pending
    this.#pending = newGroup()
    group.started = true
    this.#flushing = this.#flush(group).then(group.resolve, group.reject).finally(() => {
      this.#flushing = undefined
      if (this.#pending.chunks.length > 0) this.#start()
    })
  }

  async #flush(group: Group): Promise<void> {
    let file = await this.#open()
    // An earlier failed flush's bytes first: nothing is written after records that must not be replayed.
    if (this.#leftover > 0 && (await this.#removeLeftover(file))) file = await this.#open()
    if (this.#size >= this.#checkpointAt) await this.#checkpoint()
    for (const chunk of group.chunks) sealRecord(chunk, this.#generation)
    const records = group.chunks.length === 1 ? group.chunks[0]! : Buffer.concat(group.chunks)
    // Past the file's end: the zeros that grow it go in the same write (journal-format.ts).
    const end = this.#size + records.length
    const allocated = journalRoom(this.#allocated, end, this.#checkpointBytes)
    const bytes = allocated > this.#allocated && allocated > end ? Buffer.concat([records, Buffer.alloc(allocated - end)]) : records
    const { handle } = file
    try {
      try {
        if (handle.writeSync) writeFullySync(handle.writeSync, bytes, this.#size)
        else await writeFully(handle, bytes, this.#size)
      } catch (error) {
        throw atStep(error, 'write of the store journal')
      }
      await handle.datasync()
      this.#allocated = allocated
    } catch (error) {
      // Before the members hear of it: they report their batches as rolled back.
      this.#leftover = bytes.length
      this.#leftoverMembers = new Set(group.members)
      await this.#removeLeftover(file).catch(() => {})
      throw error
    }
    this.#size += records.length
  }

  /**
   * Removes a failed flush's {@link #leftover} bytes: cut or zeroed ({@link #discard}), else the
   * journal retired ({@link #retire}). `true` when the journal was retired (the next flush
   * creates another); throws the cut's error, marked with its step, if neither worked.
   */
  async #removeLeftover(file: JournalFile): Promise<boolean> {
    try {
      await this.#discard(file.handle)
      return false
    } catch (error) {
      if (await this.#retire(file)) return true
      throw renameStep(error, `${stepOf(error, 'ftruncate')} of the store journal, then the overwrite with zeros (cutting off an earlier failed flush's records)`)
    }
  }

  /**
   * Deletes the journal, so that no `open()` replays its records: first every session file
   * journaled since the last checkpoint is fdatasynced (as at a checkpoint), since the journal's
   * acknowledged records of them are needed until then. `false`, the journal kept, if that cannot
   * be done: a file that cannot be synced, a closed member that left records here only
   * ({@link release}), or an unlink that fails.
   */
  async #retire(file: JournalFile): Promise<boolean> {
    if (this.#keep || !(await this.#syncMembers())) return false
    let deleted: 'durable' | 'unlinked'
    try {
      deleted = await deleteJournalFile(this.#fs, this.#dir, file)
    } catch {
      return false
    }
    this.#opening = undefined
    this.#file = undefined
    this.#size = 0
    this.#allocated = 0
    this.#checkpointAt = this.#checkpointBytes
    this.#leftover = 0
    this.#unlinkPending = deleted === 'unlinked'
    if (!this.#unlinkPending) this.#leftoverMembers.clear()
    return true
  }

  /**
   * Makes what a failed flush wrote past the last durable record ({@link #leftover} bytes, zeros
   * included) unreadable, durably: cut back (ftruncate + fdatasync), or, if the file cannot be
   * cut, overwritten with zeros + fdatasync — a reader stops at the first record with the wrong
   * magic, and past a generation's end the journal holds zeros anyway. Throws the ftruncate's (or
   * fdatasync's) error if neither works; the bytes stay counted, to be tried again.
   */
  async #discard(handle: StoreFileHandle): Promise<void> {
    try {
      await step('ftruncate', () => handle.truncate(this.#size))
      this.#allocated = this.#size
      await step('fdatasync after the ftruncate', () => handle.datasync())
    } catch (error) {
      await overwriteWithZeros(handle, this.#size, this.#leftover).then(
        () => (this.#allocated = Math.max(this.#allocated, this.#size + this.#leftover)),
        () => Promise.reject(error),
      )
    }
    this.#leftover = 0
    this.#leftoverMembers.clear()
  }

  /**
   * fdatasyncs every session file journaled since the last checkpoint, then starts the next
   * generation at the journal's first byte. If a file cannot be synced the journal is kept whole
   * (its records are still needed), and the next checkpoint is tried once the journal has grown by
   * the checkpoint size again. Nothing is synced for the new generation on its own: until the next
   * flush's records are durable, a crash leaves the previous generation's records, whose bytes are
   * durable in their files already (replaying them changes nothing).
   */
  async #checkpoint(): Promise<void> {
    if (await this.#syncMembers()) {
      this.#size = 0
      this.#generation = (this.#generation + 1) >>> 0
      this.#checkpointAt = this.#checkpointBytes
      return
    }
    this.#checkpointAt = this.#size + this.#checkpointBytes
  }

  /** fdatasyncs every session file journaled since the last checkpoint; `false` (they stay to be synced) if one fails. */
  async #syncMembers(): Promise<boolean> {
    const members = [...this.#dirty]
    // Members that stage meanwhile go into the new set: their records are not written yet.
    this.#dirty = new Set()
    const synced = await Promise.allSettled(members.map((member) => member.syncFile()))
    if (synced.every((result) => result.status === 'fulfilled')) return true
    for (const member of members) this.#dirty.add(member)
    return false
  }

  /** Creates the journal file on the first flush after the store opened or the journal was retired (journal-file.ts). */
  #open(): Promise<JournalFile> {
    this.#opening ??= createJournalFile(this.#fs, this.#dir).then(
      (file) => {
        this.#file = file
        // Its creation fsynced the folder: a retired journal's deletion is durable now.
        if (this.#unlinkPending) this.#leftoverMembers.clear()
        this.#unlinkPending = false
        return file
      },
      (error: unknown) => {
        this.#opening = undefined
        throw error
      },
    )
    return this.#opening
  }
}
