import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { BosunError, ErrorCodes, assertSessionId, type SessionEvent, type SessionHeader, type SessionSummary, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'

/** A stored session as read (not opened for writing). */
export interface SessionLog {
  header: SessionHeader
  events: SessionEvent[]
}

/**
 * Read-only access to stored sessions, for `log` and `sessions list|show`. Every read goes through
 * the store, so a damaged log is refused exactly as the store refuses it (CORRUPT_LOG: events out
 * of order or repeated, a header naming another session, a line that is not JSON) and never
 * printed as if it were fine. Reading never repairs or locks anything where the store has `read`
 * (JSONL does), so it is safe while another process is writing the session.
 */
export interface SessionReader {
  list(): Promise<SessionSummary[]>
  read(id: string): Promise<SessionLog | undefined>
  /** A session's header without its events where the store can (`Store.header`), else read with them. */
  header(id: string): Promise<SessionHeader | undefined>
  /**
   * Events appended after the first `fromSeq` ones, for `--follow`. Returns `[]` when nothing new
   * is complete yet.
   */
  readAfter(id: string, fromSeq: number): Promise<SessionEvent[]>
  close(): Promise<void>
}

/** Options of {@link storeReader}. */
export interface StoreReaderOptions {
  /**
   * A cheap token that changes whenever the session may have changed (a file's size and mtime),
   * or `undefined` when unknown. `readAfter` reads the session again only when it changed.
   */
  version?(id: string): Promise<string | undefined>
}

/**
 * The JSONL sessions in `dir`, read through the CLI's own JSONL store (its `read` validates the
 * whole file and leaves out a last line still being written). `--follow` reads the file again
 * only when its size or modification time changed.
 */
export function jsonlReader(dir: string): SessionReader {
  return storeReader(jsonlStore({ dir }), { version: (id) => fileVersion(join(dir, `${id}.jsonl`)) })
}

/**
 * Reads through a store: its `read` where it has one, else `open` (releasing the session at once,
 * for stores without a lock). `--follow` reads the whole session again each time it may have changed.
 */
export function storeReader(store: Store, options: StoreReaderOptions = {}): SessionReader {
  /** The version each session had just before it was last read. */
  const versions = new Map<string, string | undefined>()
  const read = async (id: string): Promise<SessionLog | undefined> => {
    assertSessionId(id)
    versions.set(id, await options.version?.(id))
    // Without taking the session for writing where the store can (an agent may be writing it).
    if (store.read) {
      const log = await store.read(id)
      return log === undefined ? undefined : { header: log.header, events: [...log.events] }
    }
    const stored = await store.open(id)
    if (stored === undefined) return undefined
    await stored.writer.close()
    // A store's events are read-only (the memory store's may be a view): a copy, as `read` gets.
    return { header: stored.header, events: [...stored.events] }
  }
  return {
    list: () => store.list(),
    read,
    async header(id) {
      assertSessionId(id)
      return store.header ? store.header(id) : (await read(id))?.header
    },
    async readAfter(id, fromSeq) {
      const known = versions.get(id)
      if (known !== undefined && known === (await options.version?.(id))) return []
      const log = await read(id)
      if (log === undefined) throw removed(id, store)
      if (log.events.length < fromSeq) throw rewritten(id, store, log.events.length, fromSeq)
      return log.events.slice(fromSeq)
    },
    close: () => store.close(),
  }
}

/** Size, modification time and inode of a file: any append or replacement changes one of them. */
async function fileVersion(path: string): Promise<string | undefined> {
  try {
    const { size, mtimeMs, ino } = await stat(path)
    return `${size}:${mtimeMs}:${ino}`
  } catch {
    return undefined // gone or unreadable: the read that follows says which
  }
}

/** `--follow` was watching a session that no longer exists. */
function removed(id: string, store: Store): BosunError {
  return new BosunError('SESSION_NOT_FOUND', `Session "${id}" was removed from the ${store.name} store while it was being followed.`, {
    details: { sessionId: id },
  })
}

/** `--follow` found fewer events than it had printed: the log was replaced, not appended to. */
function rewritten(id: string, store: Store, length: number, shown: number): BosunError {
  return new BosunError(
    ErrorCodes.CORRUPT_LOG,
    `Session "${id}" in the ${store.name} store now has ${length} events, fewer than the ${shown} already shown: it was rewritten or replaced while being followed. Run \`bosun log ${id}\` again to see it as it is now.`,
    { details: { sessionId: id, length, shown } },
  )
}
