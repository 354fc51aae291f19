import { BosunError, LOG_FORMAT_VERSION, assertSessionId, invalidArgument } from '@bosun/core'
import type { SessionEvent, SessionHeader, SessionSummary } from '@bosun/core'
import { checkOpenedFile, refusedOpen } from './file-safety.js'
import { errnoCode, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { parseHeader } from './reader.js'
import { ioError } from './file-writes.js'

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
  let handle: StoreFileHandle
  try {
    handle = await fs.open(file, flags)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw refusedOpen(error, file, id) ?? ioError('open', file, id, error)
  }
  try {
    const checked = await checkOpenedFile(handle, file, id)
    if (checked !== 'gone') return { file, handle, ...checked }
  } catch (error) {
    await handle.close().catch(() => {})
    throw BosunError.is(error) ? error : ioError('fstat', file, id, error)
  }
  await handle.close().catch(() => {})
  return undefined
}

/** A session's list entry from its header line; undefined for a file that is not a readable session (`open()` says why). */
export async function readSummary(fs: StoreFileSystem, file: string, id: string): Promise<SessionSummary | undefined> {
  let handle: StoreFileHandle
  try {
    handle = await fs.open(file, 'r')
  } catch (error) {
    // Not there any more, or a link or a socket named like a session: not listed.
    if (errnoCode(error) === 'ENOENT' || refusedOpen(error, file, id)) return undefined
    throw ioError('open', file, id, error)
  }
  try {
    // A FIFO, a device or a folder named like a session is never read: not listed.
    if ((await checkOpenedFile(handle, file, id)) === 'gone') return undefined
    const line = await readFirstLine(handle)
    if (line === undefined) return undefined
    const header = parseHeader(line, file, id)
    return { id, createdAt: header.createdAt, ...(header.parent === undefined ? {} : { parent: header.parent }) }
  } catch (error) {
    // Not a readable session (damaged, newer, or not a regular file): left out of the list.
    if (BosunError.is(error)) return undefined
    throw ioError('read', file, id, error)
  } finally {
    await handle.close().catch(() => {})
  }
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
    if (newline >= 0) return buffer.toString('utf8', 0, newline)
  }
}
