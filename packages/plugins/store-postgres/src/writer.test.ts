import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import type { PostgresStoreOptions } from './options.js'
import { postgresStore } from './store.js'
import { available, event, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — write-behind', () => {
  const db = usePostgres()
  /**
   * A store with `options` (a short statement timeout) on a schema and session made by a store
   * without it: the layout's migrations and the create are not held to a timeout meant for one
   * batch stuck behind a lock (a busy shared cluster can take longer over them).
   */
  const shortTimeoutOn = async (schema: string, id: string, options: Partial<PostgresStoreOptions>) => {
    const maker = postgresStore({ url: db.url(), schema })
    await (await maker.create(header(id))).writer.close()
    await maker.close()
    return postgresStore({ url: db.url(), schema, ...options })
  }
  const rows = (schema: string, id: string) => db.sql<{ seq: number }>(`SELECT seq FROM "${schema}".session_events WHERE session_id = $1 ORDER BY seq`, [id])

  it('a failed batch is rolled back whole, stays queued in order, and the next flush writes it with what came after', async () => {
    const schema = db.schema()
    const store = postgresStore({ url: db.url(), schema })
    const s = await store.create(header('retry'))
    s.writer.append(event(0))
    await s.writer.flush()
    // The database refuses the next rows for a while (as a full disk or a broken constraint would).
    await db.sql(`ALTER TABLE "${schema}".session_events ADD CONSTRAINT refuse_for_now CHECK (seq < 2)`)
    s.writer.append(event(1))
    s.writer.append(event(2))
    const failure = await s.writer.flush().catch((e: unknown) => e)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect((failure as BosunError).details).toMatchObject({ session: 'retry', seq: 1, sqlState: '23514' })
    expect((await rows(schema, 'retry')).map((r) => r.seq)).toEqual([0])
    await db.sql(`ALTER TABLE "${schema}".session_events DROP CONSTRAINT refuse_for_now`)
    s.writer.append(event(3))
    await s.writer.flush()
    expect((await rows(schema, 'retry')).map((r) => r.seq)).toEqual([0, 1, 2, 3])
    await s.writer.close()
    await store.close()
  })

  it('appends without a flush are written by the batch window', async () => {
    const schema = db.schema()
    const store = postgresStore({ url: db.url(), schema, batchWindowMs: 1 })
    const s = await store.create(header('window'))
    for (let i = 0; i < 5; i++) s.writer.append(event(i))
    await until(async () => (await rows(schema, 'window')).length === 5, 'the batch window to write the events')
    await s.writer.close()
    await store.close()
  })

  it('statementTimeoutMs bounds a batch stuck behind a lock: STORE with the hint, and the retry succeeds once it is gone', async () => {
    const schema = db.schema()
    const store = await shortTimeoutOn(schema, 'stuck', { statementTimeoutMs: 300 })
    const s = (await store.open('stuck'))!
    const blocker = new pg.Client({ connectionString: db.url() })
    await blocker.connect()
    await blocker.query('BEGIN')
    await blocker.query(`SELECT 1 FROM "${schema}".sessions WHERE id = 'stuck' FOR UPDATE`)
    s.writer.append(event(0))
    const failure = await s.writer.flush().catch((e: unknown) => e)
    expect(BosunError.is(failure, 'STORE')).toBe(true)
    expect((failure as Error).message).toContain('statementTimeoutMs')
    await blocker.query('ROLLBACK')
    await blocker.end()
    await s.writer.flush()
    expect((await rows(schema, 'stuck')).map((r) => r.seq)).toEqual([0])
    await s.writer.close()
    await store.close()
  })

  it('a batch that failed for a passing reason is retried without a flush, with what was appended after it', async () => {
    const schema = db.schema()
    const store = await shortTimeoutOn(schema, 'later', { statementTimeoutMs: 300, batchWindowMs: 1 })
    const s = (await store.open('later'))!
    const blocker = new pg.Client({ connectionString: db.url() })
    await blocker.connect()
    await blocker.query('BEGIN')
    await blocker.query(`SELECT 1 FROM "${schema}".sessions WHERE id = 'later' FOR UPDATE`)
    const waitingOnLock = async () => (await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%${schema}%session_leases%'`))[0]!.n
    // The window's batch waits on the lock, and its statement times out: no flush() is called.
    s.writer.append(event(0))
    await until(async () => (await waitingOnLock()) > 0, 'the batch to wait on the lock')
    await until(async () => (await waitingOnLock()) === 0, 'the batch to time out')
    // A turn's end appended after the failure, and nobody flushes.
    s.writer.append(event(1))
    await blocker.query('ROLLBACK')
    await blocker.end()
    await until(async () => (await rows(schema, 'later')).length === 2, 'the retry to write both events')
    expect((await rows(schema, 'later')).map((r) => r.seq)).toEqual([0, 1])
    await s.writer.close()
    await store.close()
  })
})
