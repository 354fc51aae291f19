// The index reads (`readEvents` pages, `summary`) over a database migrated from layout 1: a
// session's events then live in two tables (events_v1, then events), and every page and the
// session's row must still be what a full read (`open`) and `list()` give.
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { summarizeLog } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { inspectSqliteStore, sqliteStore, type SqliteStore } from './store.js'
import { header, tempDatabase } from './testing/temp.js'
import { writeLayout1 } from './testing/layout-1.js'

let dir: string
let file: string
let cleanup: () => Promise<void>
let run = 0
const open: SqliteStore[] = []
const make = () => {
  const store = sqliteStore({ file, batchWindowMs: 60_000 })
  open.push(store)
  return store
}

beforeEach(async () => ({ dir, cleanup } = await tempDatabase()))
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => {})
  await cleanup()
})

/** One generated event, its seq given when the log is laid out. */
const kind = fc.oneof(
  fc.record({ type: fc.constant('assistant/chunk'), text: fc.string({ maxLength: 6 }) }),
  fc.record({ type: fc.constant('test/value'), text: fc.string({ maxLength: 6 }) }),
  fc.record({ type: fc.constant('turn/start'), text: fc.constant('') }),
  fc.record({ type: fc.constant('user/message'), text: fc.string({ minLength: 1, maxLength: 6 }) }),
  fc.record({ type: fc.constant('agent/inbox/spliced'), text: fc.string({ minLength: 1, maxLength: 6 }) }),
)
/** Runs of chunks (packed once written by layout 2), a fractional time, an envelope field (`extra`). */
const item = fc.record({ kind, repeat: fc.constantFrom(1, 1, 1, 3, 20), dt: fc.constantFrom(0, 1, 0.5), ignorable: fc.constantFrom(false, false, false, true) })
type Item = { type: string; text: string }
type Spec = { kind: Item; repeat: number; dt: number; ignorable: boolean }

/** The events of `specs`, from seq `from` on, each `dt` ms after the one before. */
function eventsOf(specs: readonly Spec[], from: number): SessionEvent[] {
  const out: SessionEvent[] = []
  for (const { kind, repeat, dt, ignorable } of specs) {
    for (let i = 0; i < repeat; i++) {
      const e = eventOf(from + out.length, kind, dt)
      out.push(ignorable ? (Object.freeze({ ...e, ignorable: true }) as SessionEvent) : e)
    }
  }
  return out
}

function eventOf(seq: number, { type, text }: Item, dt = 0): SessionEvent {
  const time = 1_700_000_000_000 + seq + dt
  const data =
    type === 'assistant/chunk' ? { chunk: { type: 'text-delta', text } }
    : type === 'turn/start' ? { turn: seq }
    : type === 'user/message' ? { id: `m${seq}`, role: 'user', content: text, source: { kind: 'user' } }
    : type === 'agent/inbox/spliced' ? { target: 'next-turn', start: 0, removedCount: 0, inserted: [{ id: `q${seq}`, role: 'user', content: text }] }
    : { text }
  return Object.freeze({ seq, time, type, data }) as SessionEvent
}

/** The pages of `limit` events from `from` on, until one comes back short. */
async function pages(store: SqliteStore, id: string, from: number, limit: number): Promise<SessionEvent[]> {
  const all: SessionEvent[] = []
  for (let at = from; ; at += limit) {
    const page = await store.readEvents(id, at, limit)
    all.push(...page)
    if (page.length < limit) return all
  }
}

describe('sqlite store — reads of a database migrated from layout 1', () => {
  it('property: readEvents pages and summary(id) equal a full read and list(), before and after appends', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { maxLength: 20 }),
        fc.array(fc.array(item, { minLength: 1, maxLength: 12 }), { maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(400), fc.integer({ min: 1, max: 300 })), { minLength: 1, maxLength: 6 }),
        async (old, batches, ranges) => {
          for (const store of open.splice(0)) await store.close()
          file = join(dir, `run-${run++}.sqlite`)
          const oldEvents = eventsOf(old, 0)
          writeLayout1(file, { s: oldEvents, other: [eventOf(0, { type: 'test/value', text: 'x' })] })
          const check = async (expected: SessionEvent[]) => {
            const reader = make()
            const whole = (await reader.open('s'))!
            await whole.writer.close()
            expect(whole.events).toEqual(expected)
            expect(await pages(reader, 's', 0, 1)).toEqual(expected)
            expect(await pages(reader, 's', 0, 7)).toEqual(expected)
            for (const [from, limit] of ranges) expect(await reader.readEvents('s', from, limit)).toEqual(expected.slice(from, from + limit))
            const listed = (await reader.list()).find((entry) => entry.id === 's')!
            const { delegation: _, ...row } = listed
            expect(await reader.summary('s')).toEqual(row)
            expect(row.length).toBe(expected.length)
            if (row.lastActivity !== undefined) expect(row).toMatchObject(summarizeLog(header('s'), expected))
          }
          await check(oldEvents)
          const log = [...oldEvents]
          for (const batch of batches) {
            const s = (await make().open('s'))!
            for (const e of eventsOf(batch, log.length)) {
              log.push(e)
              s.writer.append(e)
            }
            await s.writer.close()
            await check(log)
          }
          // Every session listed has its full summary once its writer has written a batch.
          if (batches.length > 0) expect((await make().summary('s'))?.lastActivity).toBe(log.at(-1)!.time)
        },
      ),
      { numRuns: 30 },
    )
    // ~8 s alone: thousands of pages; room for a machine whose cores are busy.
  }, 120_000)

  it('a page reads about the rows it returns, in the layout 1 rows and after them', async () => {
    file = join(dir, 'long.sqlite')
    const old = eventsOf([{ kind: { type: 'test/value', text: 'old' }, repeat: 2_000, dt: 0, ignorable: false }], 0)
    writeLayout1(file, { s: old })
    const store = make()
    const s = (await store.open('s'))!
    const added = eventsOf([{ kind: { type: 'assistant/chunk', text: 'new' }, repeat: 600, dt: 0, ignorable: false }], old.length)
    for (const e of added) s.writer.append(e)
    await s.writer.close()
    const log = [...old, ...added]
    // Every row a statement of the store's connection hands back (better-sqlite3 reads a result whole with all()).
    const statement = Object.getPrototypeOf(inspectSqliteStore(store).connection()!.db.prepare('SELECT 1')) as { all: (...args: unknown[]) => unknown[] }
    const all = statement.all
    let rows = 0
    const spy = vi.spyOn(statement, 'all').mockImplementation(function (this: unknown, ...args: unknown[]) {
      const result = all.apply(this, args)
      rows += result.length
      return result
    })
    try {
      for (const from of [1_500, 1_995, 2_300]) {
        rows = 0
        expect(await store.readEvents('s', from, 10)).toEqual(log.slice(from, from + 10))
        // The page's own rows, and at most one packed row of 256 chunks before them (one row here).
        expect(rows, `from ${from}`).toBeLessThanOrEqual(12)
      }
    } finally {
      spy.mockRestore()
    }
  })
})
