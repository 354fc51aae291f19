import { BosunError, maskSecretValues } from '@bosun/core'
import { storeUnavailable } from './store-unavailable.js'

/**
 * The stable error codes of the host (SPEC §10) and their HTTP statuses; `store-unavailable` is
 * the host's own, for a case SPEC leaves open (a request its store failed), and so are
 * `child-session` and `not-supported`, for the removal of a session SPEC's `session.removed` implies.
 */
export const HOST_ERROR_STATUS = {
  'session-not-found': 404,
  'message-not-found': 404,
  'queue-item-not-found': 404,
  'session-exists': 409,
  'session-locked': 409,
  'child-session': 409,
  'steer-unavailable': 409,
  'replay-unavailable': 409,
  'version-mismatch': 412,
  'client-message-id-reused': 422,
  'invalid-request': 400,
  'unsupported-media-type': 415,
  'payload-too-large': 413,
  'not-authorized': 401,
  'forbidden-origin': 403,
  'too-many-requests': 429,
  'too-many-client-streams': 429,
  'not-found': 404,
  'internal-error': 500,
  'not-supported': 501,
  'session-unavailable': 503,
  'too-many-streams': 503,
  'store-unavailable': 503,
} as const

export type HostErrorCode = keyof typeof HOST_ERROR_STATUS

/**
 * `404 session-not-found` for a session the store does not have: what the user can do next is
 * list the sessions or create this one, so the message says so (the same words on every route).
 */
export function sessionNotFound(id: string): HostError {
  return new HostError('session-not-found', `No session "${id}" in this host's store: GET /v1/sessions lists the sessions there, POST /v1/sessions creates one.`, { id })
}

/** An error the host answers as `{ error: { code, message, details? } }` with the code's status. */
export class HostError extends Error {
  readonly code: HostErrorCode
  readonly details: unknown
  /**
   * What the operator needs and the client must not see (a lock file to delete, the process or
   * database holding a session): written to the host's log once per text, never answered.
   */
  serverNote: string | undefined
  constructor(code: HostErrorCode, message: string, details?: unknown) {
    super(message)
    this.name = 'HostError'
    this.code = code
    this.details = details
  }

  get status(): number {
    return HOST_ERROR_STATUS[this.code]
  }

  /** The answer's body; a registered secret (`registerSecret`) in the message is masked as `[redacted]`. */
  toJSON(): { error: { code: string; message: string; details?: unknown } } {
    return { error: { code: this.code, message: maskSecretValues(this.message), ...(this.details === undefined ? {} : { details: this.details }) } }
  }
}

/** Log damage and refused files: the store cannot serve the session (the operator must look). */
const UNREADABLE = new Set(['CORRUPT_LOG', 'UNSUPPORTED_LOG_VERSION', 'UNKNOWN_EVENT_TYPE', 'UNSAFE_STORE_FILE'])

/**
 * The host error a core error means for the client, or undefined for one the host cannot explain
 * (answered as `internal-error`). The core message of an unreadable log names a file on the
 * server: the client gets the id and the core code, the host's log gets the message.
 */
export function hostErrorOf(error: unknown, id?: string): HostError | undefined {
  if (!(error instanceof BosunError)) return undefined
  const at = id === undefined ? {} : { id }
  switch (error.code) {
    case 'INVALID_ARGUMENT':
    case 'INVALID_SESSION_ID':
      return new HostError('invalid-request', error.message)
    case 'SESSION_EXISTS':
      // The store's message names its side (a JSONL file's absolute path, PostgreSQL's host and database).
      return new HostError('session-exists', `Session${id === undefined ? '' : ` "${id}"`} already exists: choose another id.`, at)
    case 'SESSION_LOCKED':
      return lockedElsewhere(id, error.details, error.message)
    case 'STALE_WRITER': {
      // This host's writer was fenced: another host (or writer) took the session over while the
      // request ran, or its file was replaced under it. Not the host's failure: the session is
      // dropped (host.ts, onError; a cluster store reported the lease lost already), and the
      // client's retry opens it again from the store — or is relayed to the new owner. The store's
      // words (its database, the new owner, the file) go to the host's log.
      const taken = new HostError('session-locked', `${id === undefined ? 'The session' : `Session "${id}"`} was changed by another writer while this request ran (another host of the cluster took it over, or its stored log was replaced or appended to), and what this request changed was not written: retry the request, which opens the session again from the store.`, at)
      taken.serverNote = `session-locked: ${error.message}`
      return taken
    }
    case 'SESSION_NOT_FOUND': {
      // A cluster store refused mail for a session removed while the request ran (a relay that
      // saw its owner's lease just before the removal): it is gone, as a request after it finds.
      // (The relay runs before the route, so the id may come from the store's details only.)
      const session = id ?? (error.details as { session?: unknown }).session
      return typeof session === 'string' ? sessionNotFound(session) : undefined
    }
    case 'CHILD_SESSION': {
      // removeSession refused a subagent's child: removed with its parent only (session-remove.ts).
      const { parentSessionId } = error.details as { parentSessionId?: string }
      return new HostError('child-session', error.message, { ...at, ...(parentSessionId === undefined ? {} : { parentSessionId }) })
    }
    case 'STORE':
      // The store failed (its disk, its folder, its database): 503, retried, not a host bug.
      return storeUnavailable(error, id)
    default:
      if (!UNREADABLE.has(error.code)) return undefined
      return new HostError('internal-error', `The stored session${id === undefined ? '' : ` "${id}"`} cannot be read (${error.code}): the host's log names the file; \`bosun log\` shows what is damaged.`, { ...at, cause: error.code })
  }
}

/**
 * A session another writer holds, as the client is told. The store's own message and details name
 * the server's side — the JSONL lock file to delete, the pid and machine holding it, PostgreSQL's
 * host, port and database — which are the operator's business, as with an unreadable log
 * (hostErrorOf). On a cluster only how long the holder's lease runs is passed on: its owner is the
 * store's `owner`, by default `<hostname>:<pid>:<random>`, the machine and process again.
 */
export function lockedElsewhere(id: string | undefined, details: Record<string, unknown>, storeMessage: string): HostError {
  const { owner, expiresInMs } = details
  const lease = typeof owner === 'string' && typeof expiresInMs === 'number' ? { expiresInMs } : {}
  const session = id === undefined ? 'The session' : `Session "${id}"`
  const message = typeof owner === 'string'
    ? `${session} is open for writing in another host of the cluster: retry the request — a host relays it to the session's owner, or opens the session once that lease has ended (details.expiresInMs).`
    : `${session} is open for writing in another process: send the request there, or retry once it has closed the session (\`bosun log\` on the server reads it meanwhile).`
  const error = new HostError('session-locked', message, { ...(id === undefined ? {} : { id }), ...lease })
  // The store's own words (e.g. "If no such process is running, delete <lock file>") go to the
  // host's log instead: after a crash that left a lock behind, that is where the operator looks.
  error.serverNote = `session-locked: ${storeMessage}`
  return error
}

/** The error's JSON answer; `details.retryAfter` (seconds), when set, is sent as `retry-after` too. */
export function errorResponse(error: HostError, headers: Record<string, string> = {}): Response {
  const retryAfter = (error.details as { retryAfter?: unknown } | undefined)?.retryAfter
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {}), ...headers },
  })
}
