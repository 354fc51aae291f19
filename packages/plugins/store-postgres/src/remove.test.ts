// store.remove(id): one transaction deletes the session's events, mailbox, lease and row, refused
// while a live lease holds it (SESSION_LOCKED naming the holder) and not by an expired one; at its
// commit a NOTIFY tells every watcher on the schema (`onRemoved`). A write-behind batch or an open
// racing it waits for it and finds nothing: no half session is left. Real PostgreSQL.
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { BosunError } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, event, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — remove', () => {
  const db = usePostgres()
  const stores = (schema = db.schema()) => {
    const made = (owner: string) => postgresStore({ url: db.url(), schema, owner, leaseTtlMs: 60_000 })
    return { schema, a: made('host-a'), b: made('host-b') }
  }
  /** Ends a lease as a host that stopped renewing would leave it: expired on the database clock, not released. */
  const expire = (schema: string, session: string) =>
    db.sql(`UPDATE "${schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = $1`, [session])
  /** The rows of `session` in each table. */
  const rows = async (schema: string, session: string) => {
    const count = async (table: string, column: string) =>
      Number((await db.sql<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${table} WHERE ${column} = $1`, [session]))[0]!.n)
    return {
      sessions: await count('sessions', 'id'),
      events: await count('session_events', 'session_id'),
      leases: await count('session_leases', 'session_id'),
      mailbox: await count('session_mailbox', 'session_id'),
    }
  }
  /** Waits until `n` statements on `schema` wait for a row lock. */
  const lockWaiters = (schema: string, n: number) => until(async () => {
    const found = await db.sql<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%"${schema}"%`])
    return Number(found[0]!.n) >= n
  }, `${n} statements waiting for a lock`)
  /** A transaction of the test's own on `schema`, holding the locks `sql` takes until `commit()`. */
  const holding = async (sql: string, values: unknown[]) => {
    const client = new pg.Client({ connectionString: db.url() })
    await client.connect()
    await client.query('BEGIN')
    await client.query(sql, values)
    return { commit: async () => { await client.query('COMMIT'); await client.end() } }
  }

  it('deletes the session\'s events, mailbox, lease and row, and nothing of another session', async () => {
    const { schema, a } = stores()
    for (const id of ['gone', 'kept']) {
      const created = await a.create(header(id), [event(0), event(1)])
      created.writer.append(event(2))
      await created.writer.close()
      await a.mailbox.post(id, { messageId: 'm', body: { text: 'hi' } })
    }
    expect(await rows(schema, 'gone')).toEqual({ sessions: 1, events: 3, leases: 1, mailbox: 1 })
    expect(await a.remove('gone')).toBe(true)
    expect(await rows(schema, 'gone')).toEqual({ sessions: 0, events: 0, leases: 0, mailbox: 0 })
    expect(await rows(schema, 'kept')).toEqual({ sessions: 1, events: 3, leases: 1, mailbox: 1 })
    expect(await a.remove('gone')).toBe(false)
    await a.close()
  })

  it("another owner's live lease refuses it (SESSION_LOCKED naming the holder); nothing is lost", async () => {
    const { schema, a, b } = stores()
    const created = await a.create(header('s'))
    created.writer.append(event(0))
    await created.writer.flush()
    const refused = await b.remove('s').catch((e: unknown) => e)
    expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
    expect((refused as BosunError).details).toMatchObject({ session: 's', owner: 'host-a', expiresInMs: expect.any(Number) })
    expect((refused as Error).message).toMatch(/session "s" is open for writing elsewhere: "host-a" \(a host or another bosun process\) holds its lease for another \d+ ms/)
    expect(await rows(schema, 's')).toEqual({ sessions: 1, events: 1, leases: 1, mailbox: 0 })
    // This store's own writer refuses it too.
    expect(BosunError.is(await a.remove('s').catch((e: unknown) => e), 'SESSION_LOCKED')).toBe(true)
    await created.writer.close()
    // Released: it goes.
    expect(await b.remove('s')).toBe(true)
    await Promise.all([a.close(), b.close()])
  })

  it('an expired lease does not block; its holder\'s next batch is refused as final (STALE_WRITER) and reported lost', async () => {
    const { schema, a, b } = stores()
    const lost: string[] = []
    a.onLeaseLost((session) => lost.push(session))
    const created = await a.create(header('s'))
    created.writer.append(event(0))
    await created.writer.flush()
    await expire(schema, 's')
    expect(await b.remove('s')).toBe(true)
    created.writer.append(event(1))
    const refused = await created.writer.flush().catch((e: unknown) => e)
    // Before: STORE "not in the database", retried every few seconds for ever.
    expect(BosunError.is(refused, 'STALE_WRITER')).toBe(true)
    expect((refused as Error).message).toContain('session "s" refused this writer\'s batch: the session is no longer stored (it was removed)')
    expect(lost).toEqual(['s'])
    expect(await rows(schema, 's')).toEqual({ sessions: 0, events: 0, leases: 0, mailbox: 0 })
    await created.writer.close().catch(() => {})
    await Promise.all([a.close(), b.close()])
  })

  it('a batch racing the removal waits for it and writes nothing: no half session', async () => {
    const { schema, a, b } = stores()
    const created = await a.create(header('s'))
    created.writer.append(event(0))
    await created.writer.flush()
    await expire(schema, 's')
    // Holds the session's row, so the removal stops there — holding the lease row it locked first.
    const blocker = await holding(`SELECT 1 FROM "${schema}".sessions WHERE id = $1 FOR KEY SHARE`, ['s'])
    const removed = b.remove('s')
    await lockWaiters(schema, 1)
    created.writer.append(event(1))
    const flushed = created.writer.flush().catch((e: unknown) => e)
    await lockWaiters(schema, 2)
    await blocker.commit()
    expect(await removed).toBe(true)
    expect(BosunError.is(await flushed, 'STALE_WRITER')).toBe(true)
    expect(await rows(schema, 's')).toEqual({ sessions: 0, events: 0, leases: 0, mailbox: 0 })
    await created.writer.close().catch(() => {})
    await Promise.all([a.close(), b.close()])
  })

  it('an open racing the removal waits for it and finds no session (not a foreign key error)', async () => {
    const { schema, a, b } = stores()
    await (await a.create(header('s'))).writer.close()
    const blocker = await holding(`SELECT 1 FROM "${schema}".sessions WHERE id = $1 FOR KEY SHARE`, ['s'])
    const removed = a.remove('s')
    await lockWaiters(schema, 1)
    const opened = b.open('s').catch((e: unknown) => e)
    await lockWaiters(schema, 2)
    await blocker.commit()
    expect(await removed).toBe(true)
    expect(await opened).toBeUndefined()
    await Promise.all([a.close(), b.close()])
  })

  it('every watcher on the schema hears of a removal once it committed (onRemoved), another store\'s too; a refused one is not heard', async () => {
    const { a, b } = stores()
    const watcher = b.watch({ pollIntervalMs: 60_000 })
    const heard: string[] = []
    watcher.onRemoved((session) => heard.push(`removed ${session}`))
    watcher.onCreated((session) => heard.push(`created ${session}`))
    await watcher.whenListening()
    const held = await b.create(header('held'))
    await (await a.create(header('s'))).writer.close()
    await expect(a.remove('held')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'SESSION_LOCKED'))
    expect(await a.remove('s')).toBe(true)
    expect(await a.remove('s')).toBe(false)
    await (await a.create(header('s'))).writer.close()
    // NOTIFYs of different transactions arrive in commit order.
    await until(() => heard.length === 4, 'the NOTIFY of the second creation')
    expect(heard).toEqual(['created held', 'created s', 'removed s', 'created s'])
    await held.writer.close()
    await Promise.all([watcher.close(), a.close(), b.close()])
  })

  it('refuses an invalid id and a closed store', async () => {
    const { a } = stores()
    await expect(a.remove('../x')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'INVALID_SESSION_ID'))
    await a.close()
    await expect(a.remove('s')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'STORE'))
  })
})
