import { BosunError, ErrorCodes } from '@bosun/core'

/** The message of any thrown value. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Wraps a failure as a {@link ErrorCodes.STORE} error naming the database file, keeping the
 * original as `cause`. A BosunError is passed through as it is (it already says what happened).
 * A primary-key conflict on the events table means another writer took the seq: STALE_WRITER.
 */
export function storeError(file: string, doing: string, error: unknown, details: Record<string, unknown> = {}): BosunError {
  if (BosunError.is(error)) return error
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' && details.session !== undefined) {
    return new BosunError(
      ErrorCodes.STALE_WRITER,
      `SQLite store ${file}: could not ${doing}: an event with one of these seqs is already stored (another writer appended to session "${String(details.session)}"). Reopen the session.`,
      { cause: error, details: { file, ...details } },
    )
  }
  return new BosunError(ErrorCodes.STORE, `SQLite store ${file}: could not ${doing}: ${messageOf(error)}`, {
    cause: error,
    details: { file, ...(typeof code === 'string' ? { sqliteCode: code } : {}), ...details },
  })
}

/**
 * A stored session that cannot be read back as it was written. `problem` names the position (the
 * seq, the column) and never quotes what is stored there; no cause is kept for the same reason
 * (a JSON parser's message quotes its input).
 */
export function corruptLog(file: string, session: string, problem: string, details: Record<string, unknown> = {}): BosunError {
  return new BosunError(ErrorCodes.CORRUPT_LOG, `SQLite store ${file}: session "${session}" is corrupt: ${problem}`, {
    details: { file, session, ...details },
  })
}
