// Layout 2: rows keyed by (session key << 32) | seq, runs of chunk events packed into one row,
// 1 KiB pages for new databases, and databases of layout 1 migrated in place (their rows read as
// they are). What is read back is always exactly what was appended.
import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { MAX_EVENTS_PER_ROW, NEW_DATABASE_PAGE_SIZE, SCHEMA_VERSION } from './schema.js'
import { sqliteStore, type SqliteStore } from './store.js'
import { writeLayout1 } from './testing/layout-1.js'
import { event, header, rowKey, tempDatabase, withDatabase } from './testing/temp.js'

let file: string
let cleanup: () => Promise<void>
const open: SqliteStore[] = []
const make = (options: { batchWindowMs?: number } = {}) => {
  const store = sqliteStore({ file, batchWindowMs: 60_000, ...options })
  open.push(store)
  return store
}
const raw = <T>(fn: (db: Database.Database) => T): T => withDatabase(file, fn)
/** Each stored row of a session: its first seq and how many events it holds. */
const rowsOf = (session: string) =>
  raw((db) => db.prepare('SELECT seq, count FROM session_events WHERE session_id = ? ORDER BY seq').all(session) as { seq: number; count: number }[])

beforeEach(async () => ({ file, cleanup } = await tempDatabase()))
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => {})
  await cleanup()
})

const chunk = (seq: number, text: string, time = 1_700_000_000_000): SessionEvent =>
  Object.freeze({ seq, time, type: 'assistant/chunk', data: Object.freeze({ chunk: Object.freeze({ type: 'text-delta', text }) }) }) as SessionEvent
const other = (seq: number, type = 'step/start'): SessionEvent => Object.freeze({ seq, time: 1_700_000_000_000, type, data: Object.freeze({ step: seq }) }) as SessionEvent

describe('packed chunks', () => {
  it('a run of chunk events in one batch is one row; reopened, every chunk is back with its seq, time and data', async () => {
    const s = await make().create(header('p'))
    const events = [
      other(0), chunk(1, 'Hel', 1_700_000_000_001), chunk(2, 'lo', 1_700_000_000_001), chunk(3, ' wor', 1_700_000_000_002), chunk(4, 'ld', 1_700_000_000_009),
      other(5, 'assistant/message'), chunk(6, 'x'), other(7, 'step/end'),
    ]
    for (const e of events) s.writer.append(e)
    await s.writer.close()
    // Four chunks in a row → one row; a lone chunk stays a row of its own.
    expect(rowsOf('p')).toEqual([{ seq: 0, count: 1 }, { seq: 1, count: 4 }, { seq: 5, count: 1 }, { seq: 6, count: 1 }, { seq: 7, count: 1 }])
    const opened = (await make().open('p'))!
    expect(opened.events).toEqual(events)
    expect(JSON.stringify(opened.events)).toBe(JSON.stringify(events))
    expect(opened.events.every((e) => Object.isFrozen(e) && Object.isFrozen(e.data))).toBe(true)
    // The log goes on right after the packed row.
    opened.writer.append(chunk(8, 'more'))
    await opened.writer.close()
    expect((await make().open('p'))?.events).toEqual([...events, chunk(8, 'more')])
    expect((await make().list()).map(({ id, createdAt, length }) => ({ id, createdAt, length }))).toEqual([{ id: 'p', createdAt: 1_700_000_000_000, length: 9 }])
  })

  it('a chunk with another envelope field (ignorable) is not packed, runs longer than the row limit are split, runs never cross batches', async () => {
    const s = await make().create(header('q'))
    const marked = Object.freeze({ ...chunk(2, 'marked'), ignorable: true }) as SessionEvent
    const first = [chunk(0, 'a'), chunk(1, 'b'), marked, chunk(3, 'c'), chunk(4, 'd')]
    for (const e of first) s.writer.append(e)
    await s.writer.flush()
    const long = Array.from({ length: MAX_EVENTS_PER_ROW + 3 }, (_, i) => chunk(5 + i, `t${i}`))
    for (const e of long) s.writer.append(e)
    await s.writer.close()
    expect(rowsOf('q')).toEqual([
      { seq: 0, count: 2 }, { seq: 2, count: 1 }, { seq: 3, count: 2 },
      { seq: 5, count: MAX_EVENTS_PER_ROW }, { seq: 5 + MAX_EVENTS_PER_ROW, count: 3 },
    ])
    expect((await make().open('q'))?.events).toEqual([...first, ...long])
  })

  it('a seed (create, fork) is packed the same way', async () => {
    const seed = [other(0), chunk(1, 'a'), chunk(2, 'b'), chunk(3, 'c'), other(4)]
    await (await make().create(header('seeded'), seed)).writer.close()
    expect(rowsOf('seeded').map((r) => r.count)).toEqual([1, 3, 1])
    expect((await make().open('seeded'))?.events).toEqual(seed)
  })

  it('property: any mix of chunks and other events, times and batches is read back exactly', async () => {
    let n = 0
    const item = fc.record({
      chunk: fc.boolean(),
      text: fc.string({ maxLength: 8 }),
      dt: fc.constantFrom(0, 0, 1, 7),
      ignorable: fc.constantFrom(false, false, false, true),
      flush: fc.constantFrom(false, false, false, true),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 1, maxLength: 60 }), async (items) => {
        const id = `prop-${n++}`
        const store = make()
        const s = await store.create(header(id))
        const events: SessionEvent[] = []
        let time = 1_700_000_000_000
        for (const [seq, it] of items.entries()) {
          time += it.dt
          const base = it.chunk ? chunk(seq, it.text, time) : { ...other(seq, 'test/value'), time, data: { text: it.text } }
          const e = Object.freeze(it.ignorable ? { ...base, ignorable: true } : base) as SessionEvent
          events.push(e)
          s.writer.append(e)
          if (it.flush) await s.writer.flush()
        }
        await s.writer.close()
        const opened = (await make().open(id))!
        expect(JSON.stringify(opened.events)).toBe(JSON.stringify(events))
        expect(rowsOf(id).reduce((sum, r) => sum + r.count, 0)).toBe(events.length)
        await opened.writer.close()
      }),
      { numRuns: 60 },
    )
  })

  it('a damaged packed row is CORRUPT_LOG naming its first seq and the column, quoting nothing', async () => {
    const damages = [
      { sql: `UPDATE events SET data = '[{"chunk":1}]' WHERE key = ${rowKey('d', 1)}`, column: undefined },
      { sql: `UPDATE events SET data = 'S3CR3T' WHERE key = ${rowKey('d', 1)}`, column: 'data' },
      { sql: `UPDATE events SET times = '[1,"S3CR3T",3]' WHERE key = ${rowKey('d', 1)}`, column: undefined },
      { sql: `UPDATE events SET times = 'S3CR3T' WHERE key = ${rowKey('d', 1)}`, column: 'times' },
      { sql: `UPDATE events SET count = 0 WHERE key = ${rowKey('d', 1)}`, column: undefined },
      { sql: `UPDATE events SET extra = '{"S3CR3T":1}' WHERE key = ${rowKey('d', 1)}`, column: undefined },
    ]
    for (const damage of damages) {
      const store = make()
      const s = await store.create(header('d'))
      for (const e of [other(0), chunk(1, 'a', 1), chunk(2, 'b', 2), chunk(3, 'c', 3), other(4)]) s.writer.append(e)
      await s.writer.close()
      raw((db) => db.prepare(damage.sql).run())
      const error = (await make().open('d').catch((e: unknown) => e)) as BosunError
      expect(BosunError.is(error, 'CORRUPT_LOG'), damage.sql).toBe(true)
      expect(error.details).toMatchObject({ file, session: 'd', seq: 1, ...(damage.column ? { column: damage.column } : {}) })
      expect(error.message + JSON.stringify(error.details)).not.toContain('S3CR3T')
      raw((db) => db.exec(`DELETE FROM events; DELETE FROM sessions`))
    }
  })
})

describe('pages and WAL', () => {
  it('a new database has 1 KiB pages; its WAL grows by far fewer bytes per turn than layout 1 wrote', async () => {
    const store = make({ batchWindowMs: 0 })
    const s = await store.create(header('w'))
    let seq = 0
    const turn = async () => {
      // The commits of one agent turn (the benchmark's conversation): three flushes, then the tail.
      for (const batch of [[6, 0], [5, 3], [4, 0], [14, 11]]) {
        const [size, chunks] = batch as [number, number]
        for (let i = 0; i < size; i++) s.writer.append(i < chunks ? chunk(seq++, 'abcdefghij') : { ...other(seq++, 'test/value'), data: { text: 'x'.repeat(100) } })
        await s.writer.flush()
      }
    }
    for (let t = 0; t < 5; t++) await turn()
    const before = statSync(`${file}-wal`).size
    for (let t = 0; t < 20; t++) await turn()
    const perTurn = (statSync(`${file}-wal`).size - before) / 20
    expect(raw((db) => db.pragma('page_size', { simple: true }))).toBe(NEW_DATABASE_PAGE_SIZE)
    // Layout 1 wrote 13 frames of 4 KiB (~54 KB) per such turn; layout 2 ~10 frames of 1 KiB.
    expect(perTurn).toBeLessThan(20_000)
    await s.writer.close()
  })
})

describe('a database of layout 1', () => {
  const oldA = [other(0), chunk(1, 'a'), chunk(2, 'b'), Object.freeze({ ...event(3), ignorable: true }) as SessionEvent]
  const oldB = [event(0), event(1)]

  it('is migrated when first opened: every stored event reads back as it was, and the logs go on from there', async () => {
    writeLayout1(file, { a: oldA, b: oldB, empty: [] })
    expect(raw((db) => db.pragma('page_size', { simple: true }))).toBe(4096)
    const store = make()
    // (Each with its summary too, written by the migration: migrate-summaries.test.ts.)
    expect((await store.list()).map(({ id, createdAt, length, delegation }) => ({ id, createdAt, length, delegation }))).toEqual([
      { id: 'a', createdAt: 1_700_000_000_000, length: 4, delegation: null },
      { id: 'b', createdAt: 1_700_000_000_000, length: 2, delegation: null },
      { id: 'empty', createdAt: 1_700_000_000_000, length: 0, delegation: null },
    ])
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION)
    // An existing database keeps its pages.
    expect(raw((db) => db.pragma('page_size', { simple: true }))).toBe(4096)
    const a = (await store.open('a'))!
    expect(a.events).toEqual(oldA)
    expect(JSON.stringify(a.events)).toBe(JSON.stringify(oldA))
    const added = [chunk(4, 'c'), chunk(5, 'd'), other(6)]
    for (const e of added) a.writer.append(e)
    await a.writer.close()
    const empty = (await store.open('empty'))!
    empty.writer.append(event(0))
    await empty.writer.close()
    const created = await store.create(header('new'), [event(0)])
    await created.writer.close()

    const again = make()
    expect((await again.open('a'))?.events).toEqual([...oldA, ...added])
    expect((await again.open('b'))?.events).toEqual(oldB)
    expect((await again.open('empty'))?.events).toEqual([event(0)])
    expect((await again.open('new'))?.events).toEqual([event(0)])
    expect((await again.list()).map((s) => [s.id, s.length])).toEqual([['a', 7], ['b', 2], ['empty', 1], ['new', 1]])
    // The old rows stay where they were; the new ones are in the new table; both show in the view.
    expect(raw((db) => db.prepare(`SELECT COUNT(*) FROM events_v1 WHERE session_id = 'a'`).pluck().get())).toBe(4)
    expect(rowsOf('a')).toEqual([{ seq: 0, count: 1 }, { seq: 1, count: 1 }, { seq: 2, count: 1 }, { seq: 3, count: 1 }, { seq: 4, count: 2 }, { seq: 6, count: 1 }])
    expect(raw((db) => db.pragma('integrity_check', { simple: true }))).toBe('ok')
  })

  it('a stale writer is refused across the two layouts, and a gap in the old rows is CORRUPT_LOG', async () => {
    writeLayout1(file, { s: oldB, gap: [event(0), event(2)] })
    const one = make()
    const two = make()
    const first = (await one.open('s'))!
    const second = (await two.open('s'))!
    second.writer.append(event(2, { from: 'second' }))
    await second.writer.flush()
    first.writer.append(event(2, { from: 'first' }))
    const error = await first.writer.flush().catch((e: unknown) => e)
    expect(BosunError.is(error, 'STALE_WRITER')).toBe(true)
    expect((error as BosunError).details).toMatchObject({ stored: 3, seq: 2 })
    await first.writer.close().catch(() => {})
    const gap = await make().open('gap').catch((e: unknown) => e)
    expect(BosunError.is(gap, 'CORRUPT_LOG')).toBe(true)
    expect((gap as BosunError).details).toMatchObject({ session: 'gap', seq: 1 })
  })

  it('is migrated once, by whichever store opens it first, even with two opening it at once', async () => {
    writeLayout1(file, { a: oldB })
    const [x, y] = [make(), make()]
    const [lx, ly] = await Promise.all([x.list(), y.list()])
    expect(lx).toEqual(ly)
    expect((await x.open('a'))?.events).toEqual(oldB)
    expect(raw((db) => db.prepare(`SELECT COUNT(*) FROM sqlite_master WHERE name IN ('events', 'events_v1')`).pluck().get())).toBe(2)
  })
})
