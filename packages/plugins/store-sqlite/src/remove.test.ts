// store.remove(id): one transaction deletes every row of the session — its event rows, a migrated
// database's layout 1 rows, its list summary, its `sessions` row — and zeroes the freed space (a
// removal is often for privacy). A writer of this store refuses it (SESSION_LOCKED); a writer of
// another store on the file is refused its next batch instead of writing rows that belong to no
// session. The contract (contract.test.ts) covers what every store does.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { writeLayout1 } from './testing/layout-1.js'
import { tempStores } from './testing/stores.js'
import { event, header } from './testing/temp.js'

const { file, make, raw } = tempStores()

/** How many rows each table holds. */
const counts = () => raw((db) => {
  const count = (table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number
  const legacy = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'events_v1'`).get() !== undefined
  return { sessions: count('sessions'), events: count('events'), summaries: count('session_summaries'), ...(legacy ? { legacy: count('events_v1') } : {}) }
})

describe('sqlite store — remove', () => {
  it('deletes every row of the session and none of another', async () => {
    const store = make()
    for (const id of ['gone', 'kept']) {
      const created = await store.create(header(id), [event(0)])
      for (let seq = 1; seq < 5; seq++) created.writer.append(event(seq))
      await created.writer.close()
    }
    expect(counts()).toEqual({ sessions: 2, events: 10, summaries: 2 })
    expect(await store.remove('gone')).toBe(true)
    expect(counts()).toEqual({ sessions: 1, events: 5, summaries: 1 })
    expect((await store.open('kept'))?.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4])
  })

  it('deletes a migrated session\'s layout 1 rows too: the id can be created again, empty', async () => {
    writeLayout1(file(), { main: [event(0), event(1)], other: [event(0)] })
    const store = make()
    const opened = await store.open('main')
    opened!.writer.append(event(2))
    await opened!.writer.close()
    expect(counts()).toMatchObject({ sessions: 2, events: 1, legacy: 3 })
    expect(await store.remove('main')).toBe(true)
    expect(counts()).toMatchObject({ sessions: 1, events: 0, summaries: 1, legacy: 1 })
    // Refused before (STORE: events_v1 still holds the events of a session "main").
    const again = await store.create(header('main'))
    expect(again.events).toEqual([])
    await again.writer.close()
    expect((await store.open('other'))?.events).toEqual([event(0)])
  })

  it('refuses while a writer of this store has the session (SESSION_LOCKED), losing nothing; closed, it goes', async () => {
    const store = make()
    const created = await store.create(header('s'))
    created.writer.append(event(0))
    const refused = await store.remove('s').catch((e: unknown) => e)
    expect(BosunError.is(refused, 'SESSION_LOCKED')).toBe(true)
    expect((refused as Error).message).toBe(`SQLite store ${file()}: session "s" is open for writing in this store (an agent or a writer has it): close it, then remove the session.`)
    await created.writer.close()
    expect((await make().open('s'))?.events).toEqual([event(0)])
    expect(await store.remove('s')).toBe(true)
    expect(await store.summary('s')).toBeUndefined()
  })

  it('a writer of another store on the file is refused its next batch (STALE_WRITER), and writes no row', async () => {
    const a = make()
    const b = make()
    const held = await a.create(header('s'))
    expect(await b.remove('s')).toBe(true)
    held.writer.append(event(0))
    const refused = await held.writer.flush().catch((e: unknown) => e)
    expect(BosunError.is(refused, 'STALE_WRITER')).toBe(true)
    expect((refused as Error).message).toContain('session "s" was removed (by another store or process on this file) after this writer opened it')
    expect(counts()).toEqual({ sessions: 0, events: 0, summaries: 0 })
    // Made again by the other store: a new key, and the old writer still cannot write into it.
    const again = await b.create(header('s'))
    await again.writer.close()
    expect(BosunError.is(await held.writer.flush().catch((e: unknown) => e), 'STALE_WRITER')).toBe(true)
    expect((await b.open('s'))?.events).toEqual([])
    // The store that cached the old key lists and summarises the new session from its own rows.
    expect(await a.summary('s')).toMatchObject({ id: 's', length: 0 })
  })

  it('leaves none of the conversation in the database file (its freed pages are zeroed)', async () => {
    const secret = 'remove-me-4f1c9e'
    const store = make()
    const created = await store.create(header('private'))
    for (let seq = 0; seq < 40; seq++) created.writer.append(event(seq, { text: `${secret} ${'x'.repeat(200)}` }))
    await created.writer.close()
    const bytes = () => {
      raw((db) => db.pragma('wal_checkpoint(TRUNCATE)'))
      return readFileSync(file()).toString('latin1')
    }
    expect(bytes()).toContain(secret)
    expect(await store.remove('private')).toBe(true)
    expect(bytes()).not.toContain(secret)
  })

  it('refuses an invalid id and a closed store', async () => {
    const store = make()
    await expect(store.remove('../x')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'INVALID_SESSION_ID'))
    expect(await store.remove('none')).toBe(false)
    await store.close()
    await expect(store.remove('none')).rejects.toSatisfy((e: unknown) => BosunError.is(e, 'STORE'))
  })
})
