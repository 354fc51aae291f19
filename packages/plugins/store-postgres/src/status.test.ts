import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { migrations, SCHEMA_VERSION } from './schema.js'
import { postgresStore } from './store.js'
import { available, header, until, usePostgres } from './testing/postgres.js'

const turn = (seq: number, type: 'turn/start' | 'turn/end', n: number): SessionEvent =>
  Object.freeze({ seq, time: 1_700_000_000_000 + seq, type, data: Object.freeze(type === 'turn/start' ? { turn: n } : { turn: n, reason: { kind: 'completed' } }) }) as SessionEvent

describe.skipIf(!available)('postgres store — which sessions run (sessions.status)', () => {
  const pg = usePostgres()

  it('runningSessions() lists a session from its committed turn/start to its turn/end, and every host hears the change', async () => {
    const schema = pg.schema()
    const a = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    const b = postgresStore({ url: pg.url(), schema, owner: 'host-b' })
    const watcher = b.watch({ pollIntervalMs: 60_000 })
    const heard: string[] = []
    watcher.onStatus((session, status) => heard.push(`${session} ${status}`))
    await watcher.whenListening()
    const { writer } = await a.create(header('s'))
    await a.create(header('other'))
    expect(await b.runningSessions()).toEqual([])
    expect([await b.sessionStatus('s'), await b.sessionStatus('nobody')]).toEqual([null, undefined])

    writer.append(turn(0, 'turn/start', 1))
    await writer.flush()
    expect(await b.runningSessions()).toEqual(['s'])
    expect(await b.sessionStatus('s')).toBe('running')
    await until(() => heard.includes('s running'), 'the running NOTIFY on host B')

    // A batch with the turn's end and the next turn's start leaves the session running.
    writer.append(turn(1, 'turn/end', 1))
    writer.append(turn(2, 'turn/start', 2))
    await writer.flush()
    expect(await b.runningSessions()).toEqual(['s'])
    writer.append(turn(3, 'turn/end', 2))
    await writer.flush()
    expect(await b.runningSessions()).toEqual([])
    expect([await b.sessionStatus('s'), await b.sessionStatus('other')]).toEqual(['idle', null])
    await until(() => heard.at(-1) === 's idle', 'the idle NOTIFY on host B')
    expect(heard.every((h) => h.startsWith('s '))).toBe(true)
    await writer.close()
    await Promise.all([a.close(), b.close()])
  })

  it('a schema at layout 1 is migrated: its sessions gain the status and summary columns, idle and unsummarised until their next batch', async () => {
    const schema = pg.schema()
    await pg.sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".bosun_schema (version integer NOT NULL); INSERT INTO "${schema}".bosun_schema VALUES (1)`)
    await pg.sql(migrations(schema)[0]!)
    await pg.sql(`INSERT INTO "${schema}".sessions (id, header, created_at, length) VALUES ('old', $1, 1, 0)`, [JSON.stringify(header('old'))])
    const store = postgresStore({ url: pg.url(), schema, owner: 'host-a' })
    expect(await store.runningSessions()).toEqual([])
    expect(await pg.sql(`SELECT version FROM "${schema}".bosun_schema`)).toEqual([{ version: SCHEMA_VERSION }])
    // No list summary until the session's next batch: listed with its length alone (a reader reads the log).
    expect(await store.list()).toEqual([{ id: 'old', createdAt: 1, length: 0, delegation: null }])
    const opened = (await store.open('old'))!
    opened.writer.append(turn(0, 'turn/start', 1))
    await opened.writer.flush()
    expect(await store.runningSessions()).toEqual(['old'])
    expect(await store.list()).toEqual([
      { id: 'old', createdAt: 1, length: 1, lastActivity: 1_700_000_000_000, turns: 1, firstPrompt: null, pending: 0, queued: { 'next-turn': 0, 'next-step': 0 }, delegation: null },
    ])
    await opened.writer.close()
    await store.close()
  })
})
