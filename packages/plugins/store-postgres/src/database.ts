import pg from 'pg'
import { BosunError, ErrorCodes } from '@bosun/core'
import { describeDatabase, storeError } from './errors.js'
import { leaseStatements } from './lease-sql.js'
import type { ResolvedOptions } from './options.js'
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
  /** Settings for a connection outside the pool (a LISTEN connection). */
  readonly clientConfig: pg.ClientConfig
  end(): Promise<void>
}

/**
 * Makes the pool (no connection yet) for `options`; the first query creates the schema's tables,
 * or migrates them, under an advisory lock so that hosts starting together do it once. A layout
 * newer than this build is refused with UNSUPPORTED_LOG_VERSION.
 */
export function openDatabase(options: ResolvedOptions): Database {
  const name = describeDatabase(options.url)
  const clientConfig: pg.ClientConfig = {
    connectionString: options.url,
    application_name: 'bosun-store-postgres',
    ...(options.statementTimeoutMs > 0 ? { statement_timeout: options.statementTimeoutMs } : {}),
  }
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize })
  // An idle connection the server drops (restart, pg_terminate_backend) must not crash the process: the pool replaces it.
  pool.on('error', () => {})
  let ready: Promise<void> | undefined
  const prepare = async () => {
    const steps = prepareSql(options.schema)
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
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
      const steps2 = migrations(options.schema)
      for (let from = version; from < SCHEMA_VERSION; from++) await client.query(steps2[from]!)
      if (version < SCHEMA_VERSION) await client.query(steps.setVersion)
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }
  const whenReady = () => {
    ready ??= prepare().catch((error: unknown) => {
      ready = undefined // the next operation tries again (the database may have been down)
      throw storeError(name, `prepare schema "${options.schema}"`, error)
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
    async query(text, values) {
      await whenReady()
      return pool.query(text, values)
    },
    async transaction(fn) {
      await whenReady()
      const client = await pool.connect()
      let broken = false
      try {
        await client.query('BEGIN')
        const result = await fn(client)
        await client.query('COMMIT')
        return result
      } catch (error) {
        // A connection that cannot even roll back is dropped from the pool, not reused.
        await client.query('ROLLBACK').catch(() => (broken = true))
        throw error
      } finally {
        client.release(broken)
      }
    },
    end: () => pool.end(),
  }
}
