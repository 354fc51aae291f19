import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { syncDirectory, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { JOURNAL_PREFIX, sealRecord } from './journal-format.js'
import { acquireSessionLock, type SessionLock } from './lock.js'
import { overwriteWithZeros, writeFully, writeFullySync } from './file-writes.js'

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
 * if that fails too, the members are told their batch may come back after a crash
 * ({@link recordsLeftOf}), and the next flush writes nothing before it has cut them off.
 *
 * Checkpoint: once the journal holds {@link CHECKPOINT_BYTES}, the next flush first fdatasyncs
 * every session file written since the last checkpoint (all at once), then starts the journal
 * over from its first byte in the next **generation** — its records are in durable session files
 * now. A writer that closes fdatasyncs its own file first ({@link release}); the store's
 * `close()` deletes the journal once every writer did. After a crash the journal's owner is dead,
 * and recovery.ts replays it.
 *
 * Why overwrite, not truncate and append: an fdatasync after an append must also commit the
 * file's new size (on ext4 a journal commit of the file system's metadata, with everyone else's
 * pending metadata in it); after an overwrite of blocks the file already has, it flushes data
 * only. So the journal is grown ahead of its writes with zeros ({@link EXTEND_BYTES} at first,
 * then doubling, in the same write + fdatasync as the flush that needs the room) and reused after
 * each checkpoint: after a few flushes, a flush's fdatasync no longer changes the file's size.
 * (Measured: docs/benchmarks.md, section 4.) What lies past the current generation's last record
 * — zeros, or records of an earlier generation — ends the journal when it is read
 * (journal-format.ts).
 */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024
/**
 * @internal The checkpoint size a store's journal gets, for tests that need generations to turn
 * over in a few flushes. Not exported from the package.
 */
export const journalTuning = { checkpointBytes: CHECKPOINT_BYTES }
/** Errors of a cut that failed (the zeros too): the flush refused for it names that step, not an fdatasync that never ran. */
const discardSteps = new WeakMap<object, string>()

/** The step of the store journal that `error` (from {@link StoreJournal.sync}) failed at. */
export function journalStep(error: unknown): string {
  return (typeof error === 'object' && error !== null && discardSteps.get(error)) || 'fdatasync of the store journal'
}

/** The first extent the journal is grown to with zeros; later extents double, up to the checkpoint size. */
export const EXTEND_BYTES = 64 * 1024

/** A writer whose batches go through the journal. */
export interface JournalMember {
  /** fdatasyncs the member's session file; resolves at once if the member closed (it synced its file itself). */
  syncFile(): Promise<void>
}

/** The records staged for one flush. */
export interface JournalGroup {
  readonly done: Promise<void>
}

interface Group extends JournalGroup {
  chunks: Buffer[]
  /** Who staged each chunk. */
  members: JournalMember[]
  started: boolean
  resolve: () => void
  reject: (error: unknown) => void
}

export class StoreJournal {
  readonly #dir: string
  readonly #fs: StoreFileSystem
  readonly #checkpointBytes: number
  #opening: Promise<StoreFileHandle> | undefined
  #lock: SessionLock | undefined
  #path: string | undefined
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
  /** The members whose records those {@link #leftover} bytes hold. */
  #leftoverMembers = new Set<JournalMember>()
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
    return this.#path
  }

  /**
   * Whether a failed flush's records of `member` may still be in the journal (replayable after a
   * crash) until a later flush cuts them off. A member that was not in that flush has none there,
   * even if its own flush is refused because of them (its records were never written).
   */
  recordsLeftOf(member: JournalMember): boolean {
    return this.#leftover > 0 && this.#leftoverMembers.has(member)
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
    const handle = await this.#opening?.catch(() => undefined)
    if (handle === undefined) return
    // A kept journal is replayed after the process is gone: not with a failed flush's records.
    if (this.#leftover > 0) await this.#discard(handle).catch(() => {})
    await handle.close().catch(() => {})
    if (!this.#keep && this.#dirty.size === 0) await this.#fs.unlink(this.#path!).catch(() => {})
    await this.#lock!.release()
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
    const handle = await this.#open()
    // An earlier failed flush's bytes first: nothing is written after records that must not be replayed.
    if (this.#leftover > 0) await this.#discard(handle)
    if (this.#size >= this.#checkpointAt) await this.#checkpoint()
    for (const chunk of group.chunks) sealRecord(chunk, this.#generation)
    const records = group.chunks.length === 1 ? group.chunks[0]! : Buffer.concat(group.chunks)
    // Past the file's end: the zeros that grow it go in the same write (journal-format.ts).
    const end = this.#size + records.length
    const allocated = this.#room(end)
    const bytes = allocated > this.#allocated && allocated > end ? Buffer.concat([records, Buffer.alloc(allocated - end)]) : records
    try {
      if (handle.writeSync) writeFullySync(handle.writeSync, bytes, this.#size)
      else await writeFully(handle, bytes, this.#size)
      await handle.datasync()
      this.#allocated = allocated
    } catch (error) {
      // Before the members hear of it: they report their batches as rolled back.
      this.#leftover = bytes.length
      this.#leftoverMembers = new Set(group.members)
      await this.#discard(handle).catch(() => {})
      throw error
    }
    this.#size += records.length
  }

  /**
   * Makes what a failed flush wrote past the last durable record ({@link #leftover} bytes, zeros
   * included) unreadable, durably: cut back (ftruncate + fdatasync), or, if the file cannot be
   * cut, overwritten with zeros + fdatasync — a reader stops at the first record with the wrong
   * magic, and past a generation's end the journal holds zeros anyway. Throws the ftruncate's (or
   * fdatasync's) error if neither works; the bytes stay counted, to be tried again.
   */
  async #discard(handle: StoreFileHandle): Promise<void> {
    let step = 'ftruncate'
    try {
      await handle.truncate(this.#size)
      this.#allocated = this.#size
      step = 'fdatasync after the ftruncate'
      await handle.datasync()
    } catch (error) {
      try {
        await overwriteWithZeros(handle, this.#size, this.#leftover)
        this.#allocated = Math.max(this.#allocated, this.#size + this.#leftover)
      } catch {
        if (typeof error === 'object' && error !== null) discardSteps.set(error, `${step} of the store journal, then the overwrite with zeros (cutting off an earlier failed flush's records)`)
        throw error
      }
    }
    this.#leftover = 0
    this.#leftoverMembers.clear()
  }

  /**
   * The file length a flush ending at `end` leaves: the current one if `end` fits in it; else
   * grown ahead (at least {@link EXTEND_BYTES}, then doubling up to the checkpoint size), so
   * that the flushes after it overwrite instead of appending.
   */
  #room(end: number): number {
    if (end <= this.#allocated) return this.#allocated
    let target = Math.max(EXTEND_BYTES, Math.min(2 * this.#allocated, this.#checkpointBytes + EXTEND_BYTES))
    while (target < end) target += EXTEND_BYTES
    return target
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
    const members = [...this.#dirty]
    this.#dirty = new Set()
    const synced = await Promise.allSettled(members.map((member) => member.syncFile()))
    if (synced.every((result) => result.status === 'fulfilled')) {
      this.#size = 0
      this.#generation = (this.#generation + 1) >>> 0
      this.#checkpointAt = this.#checkpointBytes
      return
    }
    for (const member of members) this.#dirty.add(member)
    this.#checkpointAt = this.#size + this.#checkpointBytes
  }

  /** Creates the journal on its first flush: lock, file (O_EXCL, 0600), then the folder's fsync, so that its name survives a crash. */
  #open(): Promise<StoreFileHandle> {
    this.#opening ??= this.#create().catch((error: unknown) => {
      this.#opening = undefined
      throw error
    })
    return this.#opening
  }

  async #create(): Promise<StoreFileHandle> {
    const path = join(this.#dir, JOURNAL_PREFIX + randomUUID())
    const lock = await acquireSessionLock(path, 'journal')
    let handle: StoreFileHandle | undefined
    try {
      handle = await this.#fs.open(path, 'wx', 0o600)
      await syncDirectory(this.#fs, this.#dir)
    } catch (error) {
      await handle?.close().catch(() => {})
      if (handle) await this.#fs.unlink(path).catch(() => {})
      await lock.release()
      throw error
    }
    this.#path = path
    this.#lock = lock
    return handle
  }
}

function newGroup(): Group {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)))
  // Every member awaits its group; this only keeps a group nobody awaits from an unhandled rejection.
  done.catch(() => {})
  return { done, chunks: [], members: [], started: false, resolve, reject }
}
