import pg from 'pg'
import { BosunError, ErrorCodes } from '@bosun/core'
import { describeDatabase, sqlState, storeError } from './errors.js'
import { leaseStatements } from './lease-sql.js'
import { ANSWER_GRACE_MS, MAX_TIMER_MS, type ResolvedOptions } from './options.js'
import { channels, migrations, prepareSql, SCHEMA_VERSION, statements } from './schema.js'

/** One store's connection pool, its statements and the name messages give the database. */
export interface Database {
  /** `postgres://host:port/db`, without credentials: for messages. */
  readonly name: string
  readonly schema: string
  readonly pool: pg.Pool
  readonly sql: ReturnType<typeof statements>
  readonly leaseSql: ReturnType<typeof leaseStatements>
  readonly channels: ReturnType<typeof channels>
  /** Runs one statement on a pooled connection (its own transaction), once the schema is ready. */
  query<Row extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>>
  /** Runs `fn` in one transaction on one connection (BEGIN … COMMIT, ROLLBACK on a throw). */
  transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>
  /** Connects and prepares the schema now, as the first statement would (once; a failure is tried again next time). */
  ready(): Promise<void>
  /** Settings for a connection outside the pool (a LISTEN connection). */
  readonly clientConfig: pg.ClientConfig
  /** How long the client waits for the database to answer ({@link answerTimeoutMs}); 0: no limit. */
  readonly answerMs: number
  end(): Promise<void>
}

/**
 * Makes the pool (no connection yet) for `options`; the first query creates the schema's tables,
 * or migrates them, under an advisory lock so that hosts starting together do it once. A layout
 * newer than this build is refused with UNSUPPORTED_LOG_VERSION.
 */
export function openDatabase(options: ResolvedOptions): Database {
  const name = describeDatabase(options.url)
  const answerMs = answerTimeoutMs(options.statementTimeoutMs)
  const clientConfig: pg.ClientConfig = {
    connectionString: options.url,
    application_name: 'bosun-store-postgres',
    ...(options.statementTimeoutMs > 0 ? { statement_timeout: options.statementTimeoutMs } : {}),
    // statement_timeout is the server's own: a server that does not answer at all (a paused
    // backend, a partition, a failover that leaves the old address silent) never enforces it, and
    // every call on that connection — the cluster's loops, the lease renewals, the NOTIFYs queued
    // behind one — waited for ever. The client gives up too, a little later than the server would
    // (its error, with the reason, comes first when it can): a statement without an answer, and a
    // connection that does not open or a pooled one not free within the same bound. The server in
    // turn ends a session left idle inside a transaction that long — this client gone silent
    // mid-transaction (paused, cut off) — so that the locks it holds (a lease row, the schema's
    // advisory lock) do not make every other host's statements wait out their timeout again and again.
    ...(answerMs > 0 ? { query_timeout: answerMs, connectionTimeoutMillis: answerMs, idle_in_transaction_session_timeout: answerMs } : {}),
  }
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize })
  // An idle connection the server drops (restart, pg_terminate_backend) must not crash the process: the pool replaces it.
  pool.on('error', () => {})
  let ready: Promise<void> | undefined
  const prepare = async () => {
    const steps = prepareSql(options.schema)
    await inTransaction(pool, async (client) => {
      await client.query(steps.lock, [options.schema])
      await client.query(steps.create)
      const version = Number((await client.query<{ version: number | null }>(steps.version)).rows[0]?.version ?? 0)
      if (version > SCHEMA_VERSION) {
        throw new BosunError(
          ErrorCodes.UNSUPPORTED_LOG_VERSION,
          `PostgreSQL store ${name}: schema "${options.schema}" has layout version ${version}, but this build of @bosun/plugin-store-postgres reads up to version ${SCHEMA_VERSION}. Upgrade the plugin, or use another schema.`,
          { details: { database: name, schema: options.schema, version, supported: SCHEMA_VERSION } },
        )
      }
      if (version === 0) await refuseForeignTables(client, name, options.schema)
      const steps2 = migrations(options.schema)
      for (let from = version; from < SCHEMA_VERSION; from++) await client.query(steps2[from]!)
      if (version < SCHEMA_VERSION) await client.query(steps.setVersion)
    })
  }
  const whenReady = () => {
    ready ??= prepare().catch((error: unknown) => {
      ready = undefined // the next operation tries again (the database may have been down)
      throw storeError({ name, answerMs }, `prepare schema "${options.schema}"`, error)
    })
    return ready
  }
  return {
    name,
    schema: options.schema,
    pool,
    sql: statements(options.schema),
    leaseSql: leaseStatements(options.schema),
    channels: channels(options.schema),
    clientConfig,
    answerMs,
    async query(text, values) {
      await whenReady()
      return pool.query(text, values)
    },
    async transaction(fn) {
      await whenReady()
      return inTransaction(pool, fn)
    },
    ready: whenReady,
    end: () => pool.end(),
  }
}

/** The tables layout 1 creates: a schema without a layout version that holds one of them is not Bosun's. */
const OWN_TABLES = ['sessions', 'session_events', 'session_leases', 'session_mailbox']

/**
 * Refuses a schema that has no layout version yet but already holds a table of Bosun's names —
 * another application's schema (the `schema` option names one it uses), or one whose
 * `bosun_schema` row was removed. Creating the tables there failed with PostgreSQL's bare
 * `relation "sessions" already exists`, which says neither whose table it is nor what to do.
 */
async function refuseForeignTables(client: pg.PoolClient, database: string, schema: string): Promise<void> {
  const found = await client.query<{ name: string }>(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2::text[]) ORDER BY table_name',
    [schema, OWN_TABLES],
  )
  if (found.rows.length === 0) return
  const tables = found.rows.map((row) => `"${row.name}"`).join(', ')
  throw new BosunError(
    ErrorCodes.STORE,
    `PostgreSQL store ${database}: schema "${schema}" already holds ${tables} but no layout version of this store (its "bosun_schema" table is empty), so those tables are not this store's to use. Name a schema of the store's own with the "schema" option (it is created when missing), or, if they are left over from an earlier store whose version row was removed, drop them.`,
    { details: { database, schema, tables: found.rows.map((row) => row.name) } },
  )
}

/**
 * How long the client waits for the database's answer to a statement, for a connection to open
 * and for a pooled one to be free: `statementTimeoutMs` and {@link ANSWER_GRACE_MS} more (0: no
 * limit, as for the server), at most a timer's longest wait.
 */
export function answerTimeoutMs(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? Math.min(MAX_TIMER_MS, statementTimeoutMs + ANSWER_GRACE_MS) : 0
}

/**
 * Runs `fn` in one transaction on one pooled connection (BEGIN … COMMIT). On a throw the
 * transaction is rolled back — unless the failure is not the server's answer (the client's
 * timeout, a connection lost): that connection may still have a statement under way, which a
 * ROLLBACK would wait behind for as long again, so it is dropped from the pool instead (the
 * server ends the transaction with it). A connection that cannot even roll back is dropped too.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken = false
  // The connection's end reported between two statements (the server ended the session: idle in
  // the transaction too long, a restart) is an 'error' event with nobody to hear it once the pool
  // has lent the connection out — thrown as uncaught, it ended the process. The next statement
  // fails anyway; the connection is not given back.
  const onError = (): void => {
    broken = true
  }
  client.on('error', onError)
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    if (sqlState(error) === undefined && !BosunError.is(error)) broken = true
    else await client.query('ROLLBACK').catch(() => (broken = true))
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}
