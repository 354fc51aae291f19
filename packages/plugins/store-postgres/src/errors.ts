import { BosunError, ErrorCodes } from '@bosun/core'
import { UNANSWERED_ERRNO, unansweredText, unansweredWait } from './unanswered.js'

/**
 * How messages name the database: `postgres://host:port/database`, never the user, the password
 * or the query of the URL.
 */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url)
    return `postgres://${parsed.host || 'localhost'}${parsed.pathname === '/' ? '' : parsed.pathname}`
  } catch {
    return 'postgres://(unparsable URL)'
  }
}

/** The SQLSTATE of a PostgreSQL error (`23505`, `57014`…), if the value is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** What to check, for the errors of a URL that does not reach a database or a user that may not use it: the first ones a new user meets. */
const CONNECT_HINTS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there: check that PostgreSQL runs at that host and port, and the URL',
  ENOTFOUND: 'the host name does not resolve: check the host in the URL',
  EAI_AGAIN: 'the host name does not resolve: check the host in the URL and the DNS',
  EHOSTUNREACH: 'the host cannot be reached: check the host in the URL and the network',
  ENETUNREACH: 'the host cannot be reached: check the host in the URL and the network',
  '28P01': 'check the user and password in the URL',
  '28000': 'check the user and password in the URL',
  '3D000': 'create the database, or name one that exists in the URL',
  // The store creates its schema and tables on first use (and migrates them): the user needs that right.
  '42501': 'the user in the URL lacks a privilege: the store creates its schema and tables on first use, so grant it CREATE on the database, or create the schema for it (CREATE SCHEMA … AUTHORIZATION …) — docs/scale-out.md, Deployment',
}

/** The hint for `error` and its SQLSTATE, or '' (a hint is added to the message in parentheses). */
function hintFor(error: unknown, state: string | undefined): string {
  if (state === '57014') return ' (statement_timeout: raise "statementTimeoutMs" or look for a lock held elsewhere)'
  // A network error's code (ECONNREFUSED…) is Node's, not a SQLSTATE.
  const code = state ?? (error as { code?: unknown } | null)?.code
  const hint = typeof code === 'string' && Object.hasOwn(CONNECT_HINTS, code) ? CONNECT_HINTS[code] : undefined
  return hint === undefined ? '' : ` (${hint})`
}

/** The database as a STORE error names it, and how long its client waits for an answer (database.ts). */
export interface DatabaseLabel {
  /** `postgres://host:port/db`, without credentials. */
  readonly name: string
  /** The client's bound on an answer, a connection, a free pooled connection, in ms (0: none). */
  readonly answerMs: number
}

/**
 * Wraps a failure as a STORE error naming the database, keeping the original as `cause` (a
 * driver error names tables and constraints, never the URL). A BosunError passes through. A
 * unique violation while appending means another writer took the seq: STALE_WRITER. The client
 * giving up on a database that does not answer says what waited, how long, and what to check, and
 * carries `details.errno` ETIMEDOUT ({@link UNANSWERED_ERRNO}).
 */
export function storeError(db: DatabaseLabel, doing: string, error: unknown, details: Record<string, unknown> = {}): BosunError {
  if (BosunError.is(error)) return error
  const database = db.name
  const waited = unansweredWait(error)
  if (waited !== undefined) {
    return new BosunError(ErrorCodes.STORE, `PostgreSQL store ${database}: could not ${doing}: ${unansweredText(waited, db.answerMs)}`, {
      cause: error,
      details: { database, errno: UNANSWERED_ERRNO, waited, ...(db.answerMs > 0 ? { timeoutMs: db.answerMs } : {}), ...details },
    })
  }
  const state = sqlState(error)
  if (state === '23505' && details.session !== undefined && details.seq !== undefined) {
    return staleWriter(database, String(details.session), `an event with one of these seqs is already stored (another writer appended)`, { cause: error, ...details })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new BosunError(ErrorCodes.STORE, `PostgreSQL store ${database}: could not ${doing}: ${message}${hintFor(error, state)}`, {
    cause: error,
    details: { database, ...(state === undefined ? {} : { sqlState: state }), ...details },
  })
}

/** A writer that may not write: its view of the session is stale, or its lease was taken over. */
export function staleWriter(database: string, session: string, why: string, details: Record<string, unknown> & { cause?: unknown } = {}): BosunError {
  const { cause, ...rest } = details
  return new BosunError(
    ErrorCodes.STALE_WRITER,
    `PostgreSQL store ${database}: session "${session}" refused this writer's batch: ${why}. Nothing of it was stored; reopen the session to continue.`,
    { ...(cause === undefined ? {} : { cause }), details: { database, session, ...rest } },
  )
}

/** The session's lease is held by another live owner (another host, or another writer of this store). */
export function sessionLocked(database: string, session: string, holder: { owner: string; expiresInMs: number } | 'this store'): BosunError {
  const who = holder === 'this store'
    ? 'another writer of this store has it open: close that writer first'
    // The holder may be a process that died (a killed \`bosun run\`): its lease outlives it by up to the TTL.
    : `"${holder.owner}" (a host or another bosun process) holds its lease for another ${Math.max(0, Math.ceil(holder.expiresInMs))} ms and renews it while it runs: send the request to it or stop it; if it died (a crash, a kill), retry once that time has passed`
  return new BosunError(ErrorCodes.SESSION_LOCKED, `PostgreSQL store ${database}: session "${session}" is open for writing elsewhere: ${who}.`, {
    details: holder === 'this store' ? { database, session } : { database, session, owner: holder.owner, expiresInMs: Math.max(0, Math.ceil(holder.expiresInMs)) },
  })
}

/**
 * The code of {@link noSessionForMail}: the same word the CLI uses for an id no session has. Not in
 * core's `ErrorCodes` (no other store has a mailbox), so it is this store's own.
 */
export const SESSION_NOT_FOUND = 'SESSION_NOT_FOUND'

/**
 * A mailbox post for a session the database does not hold (never made, or removed — maybe while
 * the post waited for it): refused, so that no mail outlives its session and reaches a later one
 * made under the same id. Names no body (mail holds conversations).
 */
export function noSessionForMail(database: string, session: string, messageId: string, cause: unknown): BosunError {
  return new BosunError(
    SESSION_NOT_FOUND,
    `PostgreSQL store ${database}: message "${messageId}" was not posted: no session "${session}" is stored (it was never created, or it was removed). Create the session first; mail for a removed one has no one to read it.`,
    { cause, details: { database, session, messageId } },
  )
}

/**
 * A stored session that cannot be read back as it was written. Names the session, the seq and the
 * column, never what is stored there (a log holds conversations); no cause for the same reason.
 */
export function corruptLog(database: string, session: string, problem: string, details: Record<string, unknown> = {}): BosunError {
  return new BosunError(ErrorCodes.CORRUPT_LOG, `PostgreSQL store ${database}: session "${session}" is corrupt: ${problem}`, {
    details: { database, session, ...details },
  })
}
