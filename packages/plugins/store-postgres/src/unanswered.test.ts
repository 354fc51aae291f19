// A database that stops answering — its server paused (SIGSTOP here), a network partition, a
// failover that left the old address silent — failed the store's calls with node-postgres's words
// alone ("Query read timeout", "Connection terminated due to connection timeout"): no code a
// reader could act on (the host's 503 said only "the store failed"), nor what waited, for how
// long, or what to check. Each is STORE with details.errno ETIMEDOUT, a message saying what timed
// out after how many ms against which database, and the driver's error as the cause. Real
// PostgreSQL: a cluster of this file's own, its processes stopped and continued by the test.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { startPostgres, type PostgresServer } from '@bosun/testkit'
import { storeError } from './errors.js'
import { postgresStore } from './store.js'
import { available, header } from './testing/postgres.js'

/** The STORE error `call` rejects with. */
async function failure(call: () => Promise<unknown>): Promise<BosunError> {
  const error = await call().then(() => undefined, (e: unknown) => e)
  expect(BosunError.is(error, 'STORE'), String(error)).toBe(true)
  return error as BosunError
}

describe.skipIf(!available)('postgres store — a database that does not answer', () => {
  let server: PostgresServer | undefined
  beforeAll(async () => {
    // Its own cluster, not the run's shared one, whose server it stops: others use that one.
    server = await startPostgres({ shared: false })
  }, 180_000)
  afterAll(() => server?.stop(), 120_000)

  /** The PIDs of the postmaster and of the store's backends (a cluster this process started: it may signal them). */
  async function processes(): Promise<{ postmaster: number; backends: number[] }> {
    const admin = new pg.Client({ connectionString: server!.url })
    await admin.connect()
    try {
      const dir = (await admin.query<{ data_directory: string }>('SHOW data_directory')).rows[0]!.data_directory
      const backends = (await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'bosun-store-postgres'")).rows.map((row) => row.pid)
      return { postmaster: Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]), backends }
    } finally {
      await admin.end()
    }
  }

  it('a statement, then a new connection, without an answer: STORE, ETIMEDOUT, what waited how long, which database, what to check', { timeout: 120_000 }, async (context) => {
    if (server!.kind === 'url') return context.skip('BOSUN_PG_URL names a server this test may not stop')
    const url = new URL(server!.url)
    const store = postgresStore({ url: server!.url, statementTimeoutMs: 500, poolSize: 1 })
    const stopped: number[] = []
    try {
      await store.create(header('s')).then((created) => created.writer.close())
      const { postmaster, backends } = await processes()
      expect(backends.length).toBeGreaterThan(0)
      // The store's connection first: its next statement gets no answer.
      for (const pid of backends) process.kill(pid, 'SIGSTOP'), stopped.push(pid)
      const statement = await failure(() => store.list())
      expect(statement.message).toBe(
        `PostgreSQL store postgres://${url.host}/postgres: could not list the sessions: the database did not answer a statement within 1500 ms ("statementTimeoutMs" and 1 s more). ` +
          'Check that PostgreSQL is up and reachable at that address — not stopped or paused, not cut off by the network or a failover — and not too loaded to answer; the call can be made again.',
      )
      expect(statement.details).toEqual({ database: `postgres://${url.host}/postgres`, errno: 'ETIMEDOUT', waited: 'statement', timeoutMs: 1500 })
      expect((statement.cause as Error).message).toBe('Query read timeout')

      // The server as a whole: the connection that replaces the dropped one does not open.
      process.kill(postmaster, 'SIGSTOP'), stopped.push(postmaster)
      const connection = await failure(() => store.summary('s'))
      expect(connection.message).toContain(`PostgreSQL store postgres://${url.host}/postgres: could not read the summary of session "s": the database did not answer a new connection within 1500 ms`)
      expect(connection.details).toMatchObject({ errno: 'ETIMEDOUT', waited: 'connection', timeoutMs: 1500, session: 's' })
      expect((connection.cause as Error).message).toBe('Connection terminated due to connection timeout')
      // A call that threw the driver's error bare, with no code at all.
      const mail = await failure(() => store.mailbox.sessions())
      expect(mail.message).toContain('could not list the sessions with pending mail: the database did not answer a new connection within 1500 ms')
      for (const error of [statement, connection, mail]) expect(error.message).not.toContain(url.password)
    } finally {
      for (const pid of stopped) process.kill(pid, 'SIGCONT')
    }
    // Answering again: the next call works (a new connection).
    expect((await store.list()).map((session) => session.id)).toEqual(['s'])
    await store.close()
  })

  it("no pooled connection free in time (pg-pool's own timeout): says so, and to raise poolSize if the database is merely busy", { timeout: 60_000 }, async () => {
    const pool = new pg.Pool({ connectionString: server!.url, max: 1, connectionTimeoutMillis: 300 })
    const held = await pool.connect()
    try {
      const driverError = await pool.query('SELECT 1').then(() => undefined, (e: unknown) => e)
      const error = storeError({ name: 'postgres://db:5432/app', answerMs: 300 }, 'list the sessions', driverError)
      expect(error.message).toContain('could not list the sessions: no connection of the pool ("poolSize") became free within 300 ms ("statementTimeoutMs" and 1 s more): the database did not answer the statements on them in time.')
      expect(error.message).toContain('or raise "poolSize" if it is merely busy; the call can be made again.')
      expect(error.details).toEqual({ database: 'postgres://db:5432/app', errno: 'ETIMEDOUT', waited: 'pool', timeoutMs: 300 })
      expect(error.cause).toBe(driverError)
    } finally {
      held.release()
      await pool.end()
    }
  })
})
