import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { BosunError, ErrorCodes, assertSessionId, type SessionEvent, type SessionHeader, type SessionSummary, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'

/** A stored session as read (not opened for writing). */
export interface SessionLog {
  header: SessionHeader
  events: SessionEvent[]
}

/**
 * Read-only access to stored sessions, for `log` and `sessions list|show`. Reading never repairs
 * or locks anything, so it is safe while another process is writing the session.
 */
export interface SessionReader {
  list(): Promise<SessionSummary[]>
  read(id: string): Promise<SessionLog | undefined>
  /**
   * Events appended after the first `fromSeq` ones, for `--follow`. Returns `[]` when nothing new
   * is complete yet.
   */
  readAfter(id: string, fromSeq: number): Promise<SessionEvent[]>
  close(): Promise<void>
}

/**
 * Reads JSONL session files directly (format: `@bosun/plugin-store-jsonl`'s README): the header
 * line, then one event per line. A last line without its newline is an append in progress (or
 * torn by a crash) and is not read; the store repairs it when it opens the session, this reader
 * never writes.
 */
export function jsonlReader(dir: string): SessionReader {
  const offsets = new Map<string, { bytes: number; seq: number }>()
  const file = (id: string) => {
    assertSessionId(id)
    return join(dir, `${id}.jsonl`)
  }
  return {
    list: () => jsonlStore({ dir }).list(),
    async read(id) {
      const chunk = await readFrom(file(id), 0)
      if (chunk === undefined) return undefined
      const [first, ...rest] = chunk.lines
      if (first === undefined) return undefined
      const header = parseHeader(first, file(id))
      const events = rest.map((line, index) => parseEvent(line, file(id), index + 2))
      offsets.set(id, { bytes: chunk.bytes, seq: events.length })
      return { header, events }
    },
    async readAfter(id, fromSeq) {
      const known = offsets.get(id)
      if (known === undefined || known.seq !== fromSeq) {
        const log = await this.read(id)
        if (log === undefined) throw removed(id, file(id))
        return log.events.slice(fromSeq)
      }
      const chunk = await readFrom(file(id), known.bytes)
      if (chunk === undefined) throw removed(id, file(id))
      const events = chunk.lines.map((line, index) => parseEvent(line, file(id), known.seq + index + 2))
      offsets.set(id, { bytes: known.bytes + chunk.bytes, seq: known.seq + events.length })
      return events
    },
    close: async () => {},
  }
}

/** Reads through a store (SQLite, or any other): each read opens the session and releases it. */
export function storeReader(store: Store): SessionReader {
  return {
    list: () => store.list(),
    async read(id) {
      // Without taking the session for writing where the store can (an agent may be writing it).
      if (store.read) {
        const log = await store.read(id)
        return log === undefined ? undefined : { header: log.header, events: [...log.events] }
      }
      const stored = await store.open(id)
      if (stored === undefined) return undefined
      await stored.writer.close()
      return { header: stored.header, events: stored.events }
    },
    async readAfter(id, fromSeq) {
      const log = await this.read(id)
      if (log === undefined) throw removed(id, `the ${store.name} store`)
      return log.events.slice(fromSeq)
    },
    close: () => store.close(),
  }
}

/** Complete lines from `position` on (without the newline), and how many bytes they take. */
async function readFrom(path: string, position: number): Promise<{ lines: string[]; bytes: number } | undefined> {
  let handle
  try {
    handle = await open(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new BosunError(ErrorCodes.STORE, `Cannot read ${path}: ${(error as Error).message}`, { cause: error })
  }
  try {
    const { size } = await handle.stat()
    if (size <= position) return { lines: [], bytes: 0 }
    const buffer = Buffer.alloc(size - position)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
    const end = buffer.lastIndexOf(0x0a, bytesRead - 1)
    if (end < 0) return { lines: [], bytes: 0 }
    const text = buffer.toString('utf8', 0, end)
    return { lines: text.split('\n'), bytes: end + 1 }
  } finally {
    await handle.close()
  }
}

function parseHeader(line: string, file: string): SessionHeader {
  const value = parseLine(line, file, 1) as Record<string, unknown>
  if (value?.bosun !== 'session') throw corrupt(file, 1, 'the first line is not a Bosun session header')
  const { bosun: _marker, ...header } = value
  return header as unknown as SessionHeader
}

function parseEvent(line: string, file: string, lineNumber: number): SessionEvent {
  const value = parseLine(line, file, lineNumber) as SessionEvent
  if (typeof value?.seq !== 'number' || typeof value.type !== 'string') throw corrupt(file, lineNumber, 'the line is not an event')
  return value
}

function parseLine(line: string, file: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line)
  } catch (error) {
    throw corrupt(file, lineNumber, `the line is not JSON (${(error as Error).message})`)
  }
}

/** `--follow` was watching a session that no longer exists. */
function removed(id: string, where: string): BosunError {
  return new BosunError('SESSION_NOT_FOUND', `Session "${id}" was removed from ${where} while it was being followed.`, { details: { sessionId: id } })
}

function corrupt(file: string, line: number, problem: string): BosunError {
  return new BosunError(ErrorCodes.CORRUPT_LOG, `Session log ${file}, line ${line}: ${problem}.`, { details: { file, line } })
}
