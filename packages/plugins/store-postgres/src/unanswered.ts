/**
 * The client giving up on a database that does not answer (database.ts's `query_timeout` and
 * `connectionTimeoutMillis`, `statementTimeoutMs` and 1 s more): what waited, and what a message
 * says of it. node-postgres's own words ("Query read timeout") carry no code and say neither what
 * waited, nor how long, nor what to check.
 */

/** What waited for the database in vain: a statement's answer, a new connection, a pooled connection to be free. */
export type UnansweredWait = 'statement' | 'connection' | 'pool'

/** What node-postgres (8.23) throws for each (pg's Client, pg-pool), by its message. */
const CLIENT_TIMEOUTS: Record<string, UnansweredWait> = {
  'Query read timeout': 'statement',
  'timeout expired': 'connection',
  'Connection terminated due to connection timeout': 'connection',
  'timeout exceeded when trying to connect': 'pool',
}

/**
 * The system error code a client timeout gets in a STORE error's `details.errno` — the one Node
 * gives its own socket timeouts — so that a reader of codes (the host's `503 store-unavailable`,
 * `details.cause`) can say "the database did not answer" rather than "the store failed".
 */
export const UNANSWERED_ERRNO = 'ETIMEDOUT'

/** What waited when `error` is the client giving up on the database; `undefined` for any other error (one the server sent has a SQLSTATE). */
export function unansweredWait(error: unknown): UnansweredWait | undefined {
  if (!(error instanceof Error)) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return undefined
  return Object.hasOwn(CLIENT_TIMEOUTS, error.message) ? CLIENT_TIMEOUTS[error.message] : undefined
}

/**
 * What timed out after how long, and what to check, as the end of a STORE message
 * (`… could not list the sessions: <this>`). `afterMs`: the client's bound (0: not known).
 */
export function unansweredText(waited: UnansweredWait, afterMs: number): string {
  const within = `within ${afterMs > 0 ? `${afterMs} ms ("statementTimeoutMs" and 1 s more)` : '"statementTimeoutMs" and 1 s more'}`
  const what = {
    statement: `the database did not answer a statement ${within}`,
    connection: `the database did not answer a new connection ${within}`,
    // Every pooled connection busy that long: with statements the database has not answered, mostly.
    pool: `no connection of the pool ("poolSize") became free ${within}: the database did not answer the statements on them in time`,
  }[waited]
  const busy = waited === 'pool' ? ', or raise "poolSize" if it is merely busy' : ''
  return `${what}. Check that PostgreSQL is up and reachable at that address — not stopped or paused, not cut off by the network or a failover — and not too loaded to answer${busy}; the call can be made again.`
}
