// Layout 1 rows (events_v1, kept by the migration) belong to a session by its id, not its key. A
// session of such a database deleted by hand (its `sessions` row removed, its rows left) lent them
// to the next session created with its id — the CLI's `main`, say: the new session read the old
// events as its own log on its next open, and its writer was STALE_WRITER at seq 0. Layout 3's keys
// (key-reuse.test.ts) cannot help: these rows carry no key.
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { writeLayout1 } from './testing/layout-1.js'
import { tempStores } from './testing/stores.js'
import { event, header } from './testing/temp.js'

const { file, make, raw } = tempStores()

describe('a database migrated from layout 1, a session deleted by hand', () => {
  it('its id cannot be created again while its layout 1 rows are left, and the error says how to free it', async () => {
    writeLayout1(file(), { main: [event(0), event(1), event(2)], other: [event(0)] })
    expect((await make().list()).map((s) => s.id)).toEqual(['main', 'other'])
    raw((db) => db.prepare(`DELETE FROM sessions WHERE id = 'main'`).run())
    const store = make()
    const error = await store.create(header('main')).catch((e: unknown) => e)
    expect(BosunError.is(error, 'STORE')).toBe(true)
    expect((error as Error).message).toBe(
      `SQLite store ${file()}: session "main" cannot be created: events_v1 (layout 1) still holds the events of a session "main" whose row was deleted, and the new session would read them as its own log. Delete them first (DELETE FROM events_v1 WHERE session_id = 'main'), or choose another id.`,
    )
    // Nothing was stored, and the other sessions are as they were.
    expect(raw((db) => db.prepare(`SELECT COUNT(*) FROM sessions WHERE id = 'main'`).pluck().get())).toBe(0)
    expect((await store.list()).map((s) => [s.id, s.length])).toEqual([['other', 1]])
    expect((await store.open('other'))?.events).toEqual([event(0)])
  })

  it('once the rows are deleted as the error says, the id starts an empty log', async () => {
    writeLayout1(file(), { main: [event(0), event(1), event(2)] })
    await make().list()
    raw((db) => db.prepare(`DELETE FROM sessions WHERE id = 'main'`).run())
    raw((db) => db.exec(`DELETE FROM events_v1 WHERE session_id = 'main'`))
    const created = await make().create(header('main'))
    expect(created.events).toEqual([])
    created.writer.append(event(0, { mine: true }))
    await created.writer.close()
    expect((await make().open('main'))?.events).toEqual([event(0, { mine: true })])
  })

  it('a layout 1 session still there is SESSION_EXISTS, as before', async () => {
    writeLayout1(file(), { main: [event(0)] })
    expect(BosunError.is(await make().create(header('main')).catch((e: unknown) => e), 'SESSION_EXISTS')).toBe(true)
  })
})
