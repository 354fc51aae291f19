// A host learns of sessions other hosts make from a NOTIFY on `<schema>_sessions` that the create
// sends inside its transaction: "<session> <owner>", for a create and a fork (a create with a
// seed), never for a create that was refused or rolled back. Real PostgreSQL.
import { describe, expect, it } from 'vitest'
import { BosunError, forkSession, Session } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, header, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — a session made is notified to every watcher', () => {
  const pg = usePostgres()

  it('create and fork notify "<session> <owner>" once; a refused or rolled-back create notifies nothing', async () => {
    const schema = pg.schema()
    const a = postgresStore({ url: pg.url(), schema, owner: 'host a:1' })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    const watcher = b.watch({ pollIntervalMs: 60_000 })
    const made: string[] = []
    watcher.onCreated((session, owner) => made.push(`${session} by ${owner}`))
    await watcher.whenListening()

    const stored = await a.create(header('s1'))
    const session = new Session(stored.header, stored.events, { writer: stored.writer })
    session.append('turn/start', { turn: 1 })
    session.append('turn/end', { turn: 1, reason: 'completed' })
    await session.flush()
    await stored.writer.close()
    // Taken: refused before anything is written.
    await expect(b.create(header('s1'))).rejects.toSatisfy((e) => BosunError.is(e, 'SESSION_EXISTS'))
    // A create whose last statement fails (the lease row is refused by a trigger) rolls back whole.
    await pg.sql(`CREATE FUNCTION "${schema}".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`)
    await pg.sql(`CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".session_leases FOR EACH ROW WHEN (NEW.session_id = 'doomed') EXECUTE FUNCTION "${schema}".refuse()`)
    await expect(a.create(header('doomed'))).rejects.toThrow(/refused/)
    expect(await a.summary('doomed')).toBeUndefined()
    const fork = await forkSession(b, 's1', { id: 'f1' })
    await fork.writer.close()

    // NOTIFYs of different transactions arrive in commit order: once f1's is here, every earlier one is.
    await until(() => made.some((m) => m.startsWith('f1 ')), 'the NOTIFY of the fork')
    expect(made).toEqual(['s1 by host a:1', 'f1 by host-b'])
    await Promise.all([watcher.close(), a.close(), b.close()])
  })

  it('onListen is called when the LISTEN connection is up, and again after it was lost', async () => {
    const schema = pg.schema()
    const store = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    await store.list() // the schema exists before anything LISTENs
    const watcher = store.watch({ pollIntervalMs: 60_000, reconnectDelayMs: 20 })
    let ups = 0
    watcher.onListen(() => ups++)
    await watcher.whenListening()
    await until(() => ups === 1, 'the first LISTEN')
    await pg.sql('SELECT pg_terminate_backend($1)', [watcher.backendPid])
    await until(() => ups === 2 && watcher.listening, 'the LISTEN after the reconnection')
    expect(watcher.stats.reconnects).toBe(1)
    // Still listening on the sessions channel after it.
    const made: string[] = []
    watcher.onCreated((session) => made.push(session))
    await (await store.create(header('after'))).writer.close()
    await until(() => made.includes('after'), 'the NOTIFY after the reconnection')
    await Promise.all([watcher.close(), store.close()])
  })
})
