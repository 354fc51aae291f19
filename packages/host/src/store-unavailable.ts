import type { BosunError } from '@bosun/core'
import { HostError } from './errors.js'

/** How long a client is asked to wait before retrying a request the store failed (`retry-after`, seconds). */
export const STORE_RETRY_AFTER_S = 5

/**
 * What a system error code or SQLSTATE means, in words a client may read. The store's own message
 * is not passed on: both built-in stores name the server's side in it (the JSONL folder's absolute
 * path, PostgreSQL's host, port and database, a driver's words), which the host's answers never
 * name (see hostErrorOf); the code alone says what kind of failure it is.
 */
const REASONS: Record<string, string> = {
  ENOSPC: "the server's disk is full",
  EDQUOT: "the server's disk quota is used up",
  EIO: 'the server had a disk error',
  EROFS: 'the sessions folder is on a read-only file system',
  EACCES: 'the host may not write to its sessions folder',
  EPERM: 'the host may not write to its sessions folder',
  ENOTDIR: 'the sessions folder is missing or is not a folder',
  ENOENT: 'the sessions folder is missing',
  EMFILE: 'the host has too many files open',
  ENFILE: 'the server has too many files open',
  ECONNREFUSED: 'the database does not accept connections',
  ECONNRESET: 'the connection to the database was cut',
  ETIMEDOUT: 'the database did not answer',
  ENOTFOUND: "the database's host name does not resolve",
  EAI_AGAIN: "the database's host name does not resolve",
  EHOSTUNREACH: 'the database cannot be reached',
  ENETUNREACH: 'the database cannot be reached',
  '53100': "the database's disk is full",
  '53300': 'the database has too many connections',
  '57014': 'the database cancelled a statement that ran too long',
  '57P01': 'the database is shutting down',
  '57P02': 'the database is shutting down',
  '57P03': 'the database is starting up or shutting down',
}

/** SQLSTATE class 08 (connection exception) and others without a word of their own. */
function reasonOf(code: string | undefined): string {
  if (code === undefined) return 'the store failed'
  if (Object.hasOwn(REASONS, code)) return REASONS[code]!
  if (code.startsWith('08')) return 'the connection to the database failed'
  return 'the store failed'
}

/** A system error code (`ENOSPC`) or SQLSTATE (`57P01`) found in the error's details or its causes. */
function failureCode(error: BosunError): string | undefined {
  const details = error.details as { errno?: unknown; sqlState?: unknown }
  for (const code of [details.errno, details.sqlState]) if (typeof code === 'string') return code
  let cause: unknown = (error as { cause?: unknown }).cause
  for (let depth = 0; depth < 5 && cause !== null && typeof cause === 'object'; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && /^(E[A-Z_]+|[0-9A-Z]{5})$/.test(code)) return code
    cause = (cause as { cause?: unknown }).cause
  }
  return undefined
}

/**
 * `503 store-unavailable` for a request a STORE error ended (a disk error, a folder that cannot be
 * written, a database that is down or unreachable): the server's condition, which a retry may
 * outlive — not the host's bug (`internal-error`). The client gets what kind of failure it was
 * (`details.cause`: the system error code or SQLSTATE) and when to retry; the store's own message
 * goes to the host's log, one line per distinct text (host.ts, note), not a stack per request.
 */
export function storeUnavailable(error: BosunError, id: string | undefined): HostError {
  const code = failureCode(error)
  const session = id === undefined ? '' : ` on session "${id}"`
  const unavailable = new HostError(
    'store-unavailable',
    `The host's session store failed${session}: ${reasonOf(code)}${code === undefined ? '' : ` (${code})`}. The request may not have been carried out: retry it in ${STORE_RETRY_AFTER_S} s (a message retried under its clientMessageId is not admitted twice); the host's log says what failed.`,
    { ...(id === undefined ? {} : { id }), ...(code === undefined ? {} : { cause: code }), retryAfter: STORE_RETRY_AFTER_S },
  )
  unavailable.serverNote = `store-unavailable: ${error.message}`
  return unavailable
}
