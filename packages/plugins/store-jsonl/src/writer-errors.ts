import { BosunError, ErrorCodes } from '@bosun/core'

/** The errors a session writer refuses with (writer.ts), each saying what to do. */

/** An append whose seq does not follow the last one. */
export function outOfOrderError(id: string, file: string, expected: number, seq: number): BosunError {
  return new BosunError(
    ErrorCodes.STALE_WRITER,
    `Session "${id}" (${file}) expected seq ${expected} but an append brought seq ${seq}: another writer is using this session. Reopen it.`,
    { details: { sessionId: id, file, expected, seq } },
  )
}

export function nonFiniteTimeError(id: string, seq: number): BosunError {
  return new BosunError(ErrorCodes.STORE, `Session "${id}": event ${seq} has a non-finite "time", which JSON cannot store.`)
}

/** Another writer appended to the file: its size is not what this writer last left it at. */
export function staleWriterError(id: string, file: string, expectedSize: number, size: number): BosunError {
  return new BosunError(
    ErrorCodes.STALE_WRITER,
    `Session "${id}" changed under this writer: ${file} is ${size} bytes, but this writer last left it at ${expectedSize}. Another writer (process or store) is appending to it; nothing was written. Reopen the session.`,
    { details: { sessionId: id, file, expectedSize, size } },
  )
}

/** The file has no name left: deleted or replaced under the writer. */
export function goneFileError(id: string, file: string): BosunError {
  return new BosunError(
    ErrorCodes.STALE_WRITER,
    `Session "${id}": ${file} was deleted or replaced while this writer had it open; nothing was written (the old file has no name left, so no one could read it). Reopen the session.`,
    { details: { sessionId: id, file } },
  )
}

export function closedWriterError(id: string, file: string): BosunError {
  return new BosunError(ErrorCodes.STORE, `Session "${id}" (${file}) is closed; open it again to write.`, {
    details: { sessionId: id, file },
  })
}

/**
 * close()'s error once the writer is released: `failure` (the last flush's, or the file's close),
 * with how many events were not written (`lost`) and whether some of them may come back.
 */
export function closeError(id: string, file: string, failure: unknown, lost: number, rolledBack: boolean): BosunError {
  const code = BosunError.is(failure) ? failure.code : ErrorCodes.STORE
  // A failed batch its rollback could not cut off: the next open() may read some of it back.
  const left = rolledBack ? '' : ` Some of them may still be in ${file} or the store journal (a rollback failed): open the session to see which came back.`
  return new BosunError(
    code,
    lost > 0 ? `Session "${id}" was closed with ${lost} event(s) not written to ${file}: ${(failure as Error).message}${left}` : (failure as Error).message,
    { cause: failure, details: { sessionId: id, file, lost, ...(lost > 0 ? { rolledBack } : {}) } },
  )
}
