import { BosunError, ErrorCodes } from '@bosun/core'
import { errnoCode, type StoreFileHandle } from './file-system.js'

/** The writes every file of the store goes through, and the STORE error for a failed file operation. */

/** pwrite until every byte is written (a short write is legal); a write of 0 bytes is an error. */
export async function writeFully(handle: StoreFileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, position + offset)
    if (!(bytesWritten > 0)) throw Object.assign(new Error('write() wrote no bytes'), { code: 'EIO' })
    offset += bytesWritten
  }
}

/** {@link writeFully} with a synchronous pwrite. */
export function writeFullySync(writeSync: NonNullable<StoreFileHandle['writeSync']>, bytes: Uint8Array, position: number): void {
  let offset = 0
  while (offset < bytes.length) {
    const written = writeSync(bytes, offset, bytes.length - offset, position + offset)
    if (!(written > 0)) throw Object.assign(new Error('write() wrote no bytes'), { code: 'EIO' })
    offset += written
  }
}

/** pwrite of every byte, on this thread when the handle can (see StoreFileHandle.writeSync). */
async function writeAt(handle: StoreFileHandle, bytes: Uint8Array, position: number): Promise<void> {
  if (handle.writeSync) writeFullySync(handle.writeSync, bytes, position)
  else await writeFully(handle, bytes, position)
}

/**
 * Overwrites `length` bytes at `position` with zeros and fdatasyncs them: how a failed journal
 * flush that cannot be cut off is made unreadable (a journal reader stops at the first zero, so a
 * write that stops part-way leaves nothing readable after it either).
 */
export async function overwriteWithZeros(handle: StoreFileHandle, position: number, length: number): Promise<void> {
  await writeAt(handle, Buffer.alloc(length), position)
  await handle.datasync()
}

/**
 * Overwrites a session file's failed batch (`lines`, written at `position`) with zeros, one line
 * at a time from the last, each line's zeros fdatasynced before the next line's are written: a
 * NUL tail that open() cuts like a crash's torn one. Line by line from the end, because open()
 * reads zeros followed by whole lines as damage in the middle of the file (CORRUPT_LOG), and
 * both a write stopping part-way and a crash before an fdatasync (the page cache reaching the
 * disk in any order) could leave that if more than one line were zeroed at once. This way any
 * failure or crash leaves whole lines of the batch, at most one line partly zeroed, then zeros —
 * a file open() reads, the batch partly back (its error says it may be). One fdatasync per line:
 * the failure path only (an ftruncate that failed), never a flush's.
 */
export async function overwriteLinesWithZeros(handle: StoreFileHandle, position: number, lines: Uint8Array): Promise<void> {
  const text = Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength)
  const zeros = Buffer.alloc(lines.length)
  for (let end = lines.length; end > 0; ) {
    const start = end > 1 ? text.lastIndexOf(0x0a, end - 2) + 1 : 0
    await writeAt(handle, zeros.subarray(0, end - start), position + start)
    await handle.datasync()
    end = start
  }
}

/**
 * The STORE error for a failed file operation, naming the file and keeping the system error as
 * `cause`. For a failed batch: `queued` events, `rolledBack`, and `record` when the rollback left
 * the batch's lines in the file behind a record of its valid length (tail.ts): the record's name,
 * beside the file (no other path than `file` in what a host may pass on).
 */
export function ioError(step: string, file: string, id: string, cause: unknown, queued?: number, rolledBack?: boolean, record?: string): BosunError {
  const code = errnoCode(cause)
  const reason = `${step} failed: ${(cause as Error)?.message ?? String(cause)}`
  const state =
    queued === undefined
      ? ''
      : rolledBack && record !== undefined
        ? ` The file could be neither cut back nor overwritten, so its last durable length is recorded beside it, in ${record}: opening the session (or reading it) stops there, and the lines past it are not read. The ${queued} event(s) stay queued and the next flush() cuts the file back before retrying them.`
      : rolledBack
        ? ` The file is back at its last durable length; the ${queued} event(s) stay queued and the next flush() retries them.`
        : ` Rolling back failed too (the file or the store journal could be neither cut nor overwritten), so these events may come back after a crash, or when the session is opened again if this writer is closed before a flush() has cut them off; the ${queued} event(s) stay queued and the next flush() cuts back before retrying.`
  return new BosunError(ErrorCodes.STORE, `Could not write session "${id}" to ${file}: ${reason}.${state}`, {
    cause,
    details: { sessionId: id, file, step, ...(code ? { errno: code } : {}), ...(queued === undefined ? {} : { rolledBack: rolledBack === true }) },
  })
}
