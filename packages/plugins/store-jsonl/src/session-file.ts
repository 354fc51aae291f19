import { isUtf8 } from 'node:buffer'
import { BosunError, LOG_FORMAT_VERSION, LogSummaryFold, assertSessionId, invalidArgument } from '@bosun/core'
import type { SessionEvent, SessionHeader, SessionSummary } from '@bosun/core'
import { checkOpenedFile, refusedOpen } from './file-safety.js'
import { errnoCode, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { parseHeader, parseLog, type ParsedLog } from './reader.js'
import { ioError } from './file-writes.js'
import { readError } from './read-error.js'
import { crc32, type JournalRecord } from './journal-format.js'
import { replayAll } from './recovery.js'
import { headerCrcOf } from './replay.js'
import { foldFromSummaryFile, readSummaryFile } from './summary-file.js'
import { readValidLength, withinValidLength, type ValidLength } from './valid-length.js'

/** One session file: opening it safely, reading its header line, checking what is written to it. */

/** Headers are tiny; a "first line" longer than this is not a header. */
const MAX_HEADER_BYTES = 64 * 1024

export interface OpenedSessionFile {
  file: string
  handle: StoreFileHandle
  identity?: string
}

/**
 * A session's file, opened with `flags` and checked (a regular file with one name, see
 * file-safety.ts), or undefined when there is no such session.
 */
export async function openSessionFile(fs: StoreFileSystem, file: string, id: string, flags: 'r' | 'r+'): Promise<OpenedSessionFile | undefined> {
  // Opened to read it, or to write it (open(): a writer).
  const failed = flags === 'r' ? readError : ioError
  let handle: StoreFileHandle
  try {
    handle = await fs.open(file, flags)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw refusedOpen(error, file, id) ?? failed('open', file, id, error)
  }
  try {
    const checked = await checkOpenedFile(handle, file, id)
    if (checked !== 'gone') return { file, handle, ...checked }
  } catch (error) {
    await handle.close().catch(() => {})
    throw BosunError.is(error) ? error : failed('fstat', file, id, error)
  }
  await handle.close().catch(() => {})
  return undefined
}

/**
 * A session's list entry: its header line, and the list fields of its whole log (summary-file.ts:
 * from its sidecar and the bytes past it, else from a full read — with `dead`, the records that
 * dead processes' journals hold for it, as `read()` replays them). Undefined for a file that is
 * not a readable session; one whose header reads but whose log does not (damaged) is listed
 * without the fields (`open()` and `read()` say what is wrong with it). Damage before the sidecar's
 * offset is not seen here (the point is not to read those bytes): such a log is listed with the
 * fields of when it was written.
 */
export async function readSummary(
  fs: StoreFileSystem, file: string, id: string, dead: readonly (readonly JournalRecord[])[] | undefined,
): Promise<SessionSummary | undefined> {
  let handle: StoreFileHandle
  try {
    handle = await fs.open(file, 'r')
  } catch (error) {
    // Not there any more, or a link or a socket named like a session: not listed.
    if (errnoCode(error) === 'ENOENT' || refusedOpen(error, file, id)) return undefined
    throw readError('open', file, id, error)
  }
  try {
    let header: SessionHeader
    let headerBytes: Buffer
    try {
      // A FIFO, a device or a folder named like a session is never read: not listed.
      if ((await checkOpenedFile(handle, file, id)) === 'gone') return undefined
      const line = await readFirstLine(handle)
      if (line === undefined) return undefined
      header = parseHeader(line, file, id)
      headerBytes = Buffer.from(line + '\n', 'utf8')
    } catch (error) {
      // Not a readable session (damaged, newer, or not a regular file): left out of the list.
      if (BosunError.is(error)) return undefined
      throw error
    }
    const entry: SessionSummary = { ...entryOf(header), delegation: header.delegation ?? null }
    try {
      return { ...entry, ...(await foldOf(fs, file, id, handle, crc32(headerBytes), headerBytes.length, dead)).summary() }
    } catch {
      // Damaged, or unreadable past its header: listed without the fields, which a reader that
      // needs them gets from read() — and read() tells what is wrong. One session never fails the list.
      return entry
    }
  } catch (error) {
    throw BosunError.is(error) ? error : readError('read', file, id, error)
  } finally {
    await handle.close().catch(() => {})
  }
}

/** The fold of the session's whole log, as `read()` would read it: from the sidecar when it can, else from every line. */
async function foldOf(
  fs: StoreFileSystem, file: string, id: string, handle: StoreFileHandle, headerCrc: number, headerBytes: number,
  dead: readonly (readonly JournalRecord[])[] | undefined,
): Promise<LogSummaryFold> {
  // The sidecar, then the record, then the file (as read() does): each written before the next is cut or grown.
  const kept = dead === undefined ? await readSummaryFile(fs, file) : undefined
  const valid = await readValidLength(fs, file, id)
  if (kept !== undefined) {
    const { size } = await handle.stat()
    const end = valid !== undefined && valid.headerCrc === headerCrc ? Math.min(size, valid.length) : size
    const fold = await foldFromSummaryFile(kept, file, handle, headerCrc, headerBytes, end)
    if (fold) return fold
  }
  const log = await wholeLog(file, id, handle, valid, dead)
  return LogSummaryFold.of(log.header, log.events)
}

/** The session's whole log as `read()` reads it: within its valid length, with `dead`'s records replayed (in memory). */
async function wholeLog(
  file: string, id: string, handle: StoreFileHandle, valid: ValidLength | undefined, dead: readonly (readonly JournalRecord[])[] | undefined,
): Promise<ParsedLog> {
  const bytes = await handle.readFile()
  const replayed = dead === undefined ? bytes : replayAll(bytes, dead)?.bytes ?? bytes
  return parseLog(withinValidLength(replayed, valid, headerCrcOf(replayed)), file, id)
}

/**
 * One session's list entry for `summary(id)`: what {@link readSummary} gives for it, the header's
 * `delegation` aside, with `length`, through the same path (the sidecar and the lines past it,
 * else a full read); `undefined` when there is no such session. Where the list leaves a file out
 * or its fields out (a link, a damaged header or log), this throws what `read()` says about it.
 */
export async function sessionSummary(
  fs: StoreFileSystem, file: string, id: string, dead: readonly (readonly JournalRecord[])[] | undefined,
): Promise<(SessionSummary & { length: number }) | undefined> {
  const opened = await openSessionFile(fs, file, id, 'r')
  if (opened === undefined) return undefined
  const { handle } = opened
  let step = 'read'
  try {
    const line = await readFirstLineBytes(handle)
    if (line === undefined) {
      // No header line within reach: what a full read says (an incomplete header), or its summary.
      const log = await wholeLog(file, id, handle, await readValidLength(fs, file, id), dead ?? [])
      return { ...entryOf(log.header), ...LogSummaryFold.of(log.header, log.events).summary() }
    }
    const header = parseHeader(line.toString('utf8', 0, line.length - 1), file, id, !isUtf8(line))
    step = 'read (summarising the log)'
    return { ...entryOf(header), ...(await foldOf(fs, file, id, handle, crc32(line), line.length, dead)).summary() }
  } catch (error) {
    throw BosunError.is(error) ? error : readError(step, file, id, error)
  } finally {
    await handle.close().catch(() => {})
  }
}

/** A list entry's fields from the header (`delegation` aside). */
function entryOf(header: SessionHeader): SessionSummary {
  return { id: header.id, createdAt: header.createdAt, ...(header.parent === undefined ? {} : { parent: header.parent }) }
}

export function isSessionId(id: string): boolean {
  try {
    assertSessionId(id)
    return true
  } catch {
    return false
  }
}

/** Refuses a header or seed that would be written but could not be read back. */
export function checkHeader(header: SessionHeader, seed: readonly SessionEvent[]): void {
  if (!Number.isSafeInteger(header.version) || header.version < 1 || header.version > LOG_FORMAT_VERSION) {
    throw invalidArgument(`Session "${header.id}": header "version" must be an integer from 1 to ${LOG_FORMAT_VERSION}, got ${String(header.version)}.`)
  }
  if (!Number.isFinite(header.createdAt)) throw invalidArgument(`Session "${header.id}": header "createdAt" must be a finite number.`)
  if (!Array.isArray(seed)) throw invalidArgument(`Session "${header.id}": the seed must be an array of events.`)
  seed.forEach((event, index) => {
    if (event?.seq !== index) throw invalidArgument(`Session "${header.id}": seed event ${index} has seq ${String(event?.seq)}; seeds start at 0 and are contiguous.`)
  })
}

/** Reads up to the first newline, growing the buffer as needed; `undefined` if there is none. */
export async function readFirstLine(handle: StoreFileHandle): Promise<string | undefined> {
  const line = await readFirstLineBytes(handle)
  return line?.toString('utf8', 0, line.length - 1)
}

/** The bytes of the first line, its newline included; `undefined` if there is none within {@link MAX_HEADER_BYTES}. */
export async function readFirstLineBytes(handle: StoreFileHandle): Promise<Buffer | undefined> {
  let buffer = Buffer.allocUnsafe(1024)
  let filled = 0
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length >= MAX_HEADER_BYTES) return undefined
      buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)])
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled)
    if (bytesRead === 0) return undefined
    const newline = buffer.subarray(0, filled + bytesRead).indexOf(0x0a, filled)
    filled += bytesRead
    if (newline >= 0) return buffer.subarray(0, newline + 1)
  }
}
