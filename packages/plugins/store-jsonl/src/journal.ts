import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { syncDirectory, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { JOURNAL_PREFIX } from './journal-format.js'
import { acquireSessionLock, type SessionLock } from './lock.js'
import { writeFully, writeFullySync } from './writer.js'

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
 * crash. A failed flush is cut back off the journal (ftruncate + fdatasync; if that fails too,
 * before the next flush) and rejected to every member of it, which roll their own files back.
 *
 * Checkpoint: once the journal holds {@link CHECKPOINT_BYTES}, the next flush first fdatasyncs
 * every session file written since the last checkpoint (all at once), then cuts the journal to
 * 0 — its records are in durable session files now. A writer that closes fdatasyncs its own file
 * first ({@link release}); the store's `close()` deletes the journal once every writer did.
 * After a crash the journal's owner is dead, and recovery.ts replays it.
 */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024

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
  /** Bytes of intact, durable records in the journal. */
  #size = 0
  #pending = newGroup()
  #flushing: Promise<void> | undefined
  /** Members whose journaled bytes may not be durable in their own session file yet. */
  #dirty = new Set<JournalMember>()
  /** A member closed without its file synced: the records stay needed, the journal is kept. */
  #keep = false
  /** A failed flush could not be cut back off the journal: cut it before the next write. */
  #cut = false
  /** The journal length that calls for the next checkpoint (further after a failed one: not a retry per flush). */
  #checkpointAt: number

  constructor(dir: string, fs: StoreFileSystem, checkpointBytes = CHECKPOINT_BYTES) {
    this.#dir = dir
    this.#fs = fs
    this.#checkpointBytes = checkpointBytes
    this.#checkpointAt = checkpointBytes
  }

  /** @internal For tests: the journal's path once it exists. */
  get path(): string | undefined {
    return this.#path
  }

  /** Stages `record` (a batch `member` has written to its file) for the next flush. */
  stage(member: JournalMember, record: Buffer): JournalGroup {
    this.#dirty.add(member)
    this.#pending.chunks.push(record)
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
    if (this.#cut) {
      await handle.truncate(this.#size)
      await handle.datasync()
      this.#cut = false
    }
    if (this.#size >= this.#checkpointAt) await this.#checkpoint(handle)
    const bytes = group.chunks.length === 1 ? group.chunks[0]! : Buffer.concat(group.chunks)
    try {
      if (handle.writeSync) writeFullySync(handle.writeSync, bytes, this.#size)
      else await writeFully(handle, bytes, this.#size)
      await handle.datasync()
    } catch (error) {
      try {
        await handle.truncate(this.#size)
        await handle.datasync()
      } catch {
        this.#cut = true
      }
      throw error
    }
    this.#size += bytes.length
  }

  /**
   * fdatasyncs every session file journaled since the last checkpoint, then cuts the journal to 0.
   * If a file cannot be synced the journal is kept whole (its records are still needed), and the
   * next checkpoint is tried once the journal has grown by the checkpoint size again. The cut is not synced on its own: the next
   * flush's fdatasync makes it durable with the records written after it, and a crash before that
   * leaves old records whose bytes are durable in their files already (replaying them changes nothing).
   */
  async #checkpoint(handle: StoreFileHandle): Promise<void> {
    const members = [...this.#dirty]
    this.#dirty = new Set()
    const synced = await Promise.allSettled(members.map((member) => member.syncFile()))
    if (synced.every((result) => result.status === 'fulfilled')) {
      try {
        await handle.truncate(0)
        this.#size = 0
        this.#checkpointAt = this.#checkpointBytes
        return
      } catch {
        // Kept whole: still correct, only longer.
      }
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
  return { done, chunks: [], started: false, resolve, reject }
}
