// A session's key (the high half of its event rows' keys) is never given twice: a session deleted
// by hand — its `sessions` row removed, its event rows left — must not lend those rows to the
// next new session, in a new database (layout 3) as in one of layout 2 migrated on open.
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { SCHEMA_VERSION } from './schema.js'
import { writeLayout2 } from './testing/layout-2.js'
import { tempStores } from './testing/stores.js'
import { event, header } from './testing/temp.js'

const { file, make, raw } = tempStores()
const keyOf = (id: string) => raw((db) => db.prepare('SELECT key FROM sessions WHERE id = ?').pluck().get(id) as number)
const deleteByHand = (id: string) => raw((db) => db.prepare('DELETE FROM sessions WHERE id = ?').run(id))

describe('session keys', () => {
  it('a session created after the newest one was deleted by hand gets a new key and an empty log', async () => {
    const store = make()
    await (await store.create(header('a'), [event(0)])).writer.close()
    await (await store.create(header('b'), [event(0), event(1), event(2)])).writer.close()
    const old = keyOf('b')
    deleteByHand('b')
    const c = await store.create(header('c'))
    expect(keyOf('c')).toBeGreaterThan(old)
    expect(c.events).toEqual([])
    // Its writer goes on from an empty log, and a reader sees nothing of b's rows.
    c.writer.append(event(0, { mine: true }))
    await c.writer.close()
    expect((await make().open('c'))?.events).toEqual([event(0, { mine: true })])
    expect((await make().list()).map((s) => [s.id, s.length])).toEqual([['a', 1], ['c', 1]])
  })

  it('a key is not given again even when the deleted session left no rows', async () => {
    const store = make()
    await (await store.create(header('a'))).writer.close()
    const old = keyOf('a')
    deleteByHand('a')
    await (await make().create(header('a'))).writer.close()
    expect(keyOf('a')).toBeGreaterThan(old)
  })
})

describe('a database of layout 2', () => {
  it('is migrated on open: every session keeps its key and log, and no new one gets a key left by a session deleted by hand', async () => {
    writeLayout2(file(), { a: [event(0), event(1)], b: [event(0)], gone: [event(0), event(1), event(2)] })
    const gone = raw((db) => db.prepare(`SELECT key FROM sessions WHERE id = 'gone'`).pluck().get() as number)
    deleteByHand('gone')
    const keys = raw((db) => db.prepare('SELECT id, key FROM sessions ORDER BY id').all())
    const store = make()
    expect((await store.list()).map((s) => [s.id, s.length])).toEqual([['a', 2], ['b', 1]])
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION)
    expect(raw((db) => db.prepare('SELECT id, key FROM sessions ORDER BY id').all())).toEqual(keys)
    const created = await store.create(header('new'))
    expect(created.events).toEqual([])
    expect(keyOf('new')).toBeGreaterThan(gone)
    await created.writer.close()
    const a = (await store.open('a'))!
    expect(a.events).toEqual([event(0), event(1)])
    a.writer.append(event(2))
    await a.writer.close()
    const again = make()
    expect((await again.open('a'))?.events).toEqual([event(0), event(1), event(2)])
    expect((await again.open('b'))?.events).toEqual([event(0)])
    expect((await again.open('new'))?.events).toEqual([])
    // The rows of the deleted session stay where they were, unread.
    expect(raw((db) => db.prepare('SELECT COUNT(*) FROM events WHERE key >> 32 = ?').pluck().get(gone))).toBe(3)
    expect(raw((db) => db.prepare('SELECT session_id, seq FROM session_events ORDER BY session_id, seq').all())).toEqual([
      { session_id: 'a', seq: 0 }, { session_id: 'a', seq: 1 }, { session_id: 'a', seq: 2 }, { session_id: 'b', seq: 0 },
    ])
    expect(raw((db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
  })

  it('is migrated in one transaction: a migration that fails leaves it as it was, and the next open migrates it', async () => {
    writeLayout2(file(), { a: [event(0)] })
    // The name the migration moves the old table to is taken: it fails once the view is dropped.
    raw((db) => db.exec('CREATE TABLE sessions_v2 (x)'))
    const error = await make().list().catch((e: unknown) => e)
    expect(BosunError.is(error, 'STORE')).toBe(true)
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(2)
    expect(raw((db) => db.prepare(`SELECT name FROM sqlite_master WHERE name IN ('sessions_key', 'session_events') ORDER BY name`).pluck().all())).toEqual([
      'session_events', 'sessions_key',
    ])
    raw((db) => db.exec('DROP TABLE sessions_v2'))
    expect((await make().open('a'))?.events).toEqual([event(0)])
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION)
  })
})
