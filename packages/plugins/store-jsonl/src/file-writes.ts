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

/**
 * Overwrites `length` bytes at `position` with zeros and fdatasyncs them: how a failed write that
 * cannot be cut off is made unreadable (a NUL tail to a session file's reader, the end to a
 * journal's).
 */
export async function overwriteWithZeros(handle: StoreFileHandle, position: number, length: number): Promise<void> {
  const zeros = Buffer.alloc(length)
  if (handle.writeSync) writeFullySync(handle.writeSync, zeros, position)
  else await writeFully(handle, zeros, position)
  await handle.datasync()
}

/** The STORE error for a failed file operation, naming the file and keeping the system error as `cause`. */
export function ioError(step: string, file: string, id: string, cause: unknown, queued?: number, rolledBack?: boolean): BosunError {
  const code = errnoCode(cause)
  const reason = `${step} failed: ${(cause as Error)?.message ?? String(cause)}`
  const state =
    queued === undefined
      ? ''
      : rolledBack
        ? ` The file is back at its last durable length; the ${queued} event(s) stay queued and the next flush() retries them.`
        : ` Rolling back failed too (the file or the store journal could be neither cut nor overwritten), so these events may come back after a crash; the ${queued} event(s) stay queued and the next flush() cuts back before retrying.`
  return new BosunError(ErrorCodes.STORE, `Could not write session "${id}" to ${file}: ${reason}.${state}`, {
    cause,
    details: { sessionId: id, file, step, ...(code ? { errno: code } : {}), ...(queued === undefined ? {} : { rolledBack: rolledBack === true }) },
  })
}
