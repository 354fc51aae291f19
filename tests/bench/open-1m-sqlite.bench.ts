// Opening a 1,000,000-event session from the SQLite store, side by side with a plain parse of
// the same events as JSONL lines (read the file, split, JSON.parse each) and with SQLite's own
// floor (the store's SELECT through better-sqlite3, then JSON.parse of each `data`). Opened two
// ways: `store.open(id)` alone (read transaction, seq check, parse, validated deep-frozen copy)
// and `createAgent({ model: scripted(), store, sessionId })` (plus the core's rebuild).
// Generated once, untimed, with the store's own `create` (one transaction), then the store is
// closed so that the WAL is checkpointed into the database file.
// Events/s = length / time; the `[bench]` lines print it. Each open takes seconds, so each
// contender runs once per round, in 3 interleaved rounds (see harness.ts), no warm-up; the
// figure is the median of the 3. `BOSUN_BENCH_SQLITE_OPEN_LENGTH=100000` runs a shorter session.
// (Before commit 95ca0ad, core's toFrozenJson put every copied object in a module-level WeakSet
// and this open did not finish in 13 minutes at 1M events; see docs/benchmarks.md.)
// Run: `pnpm bench` (alone: `pnpm exec vitest bench --run tests/bench/open-1m-sqlite`).
import { readFile, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe } from 'vitest'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { header, sessionLog } from './events.js'
import { fmt, report, tempDir } from './harness.js'
import { openRounds, storeContenders, type OpenContender } from './open-rounds.js'

const LENGTH = Number(process.env.BOSUN_BENCH_SQLITE_OPEN_LENGTH ?? 1_000_000)

/** The few better-sqlite3 calls used here (the package is a dependency of the SQLite store, not of the workspace root). */
interface RawDatabase {
  prepare(sql: string): {
    all(...params: unknown[]): { seq: number; time: number; type: string; data: string; extra: string | null; count: number }[]
    get(...params: unknown[]): { key: number } | undefined
  }
  close(): void
}
const Database = createRequire(new URL('../../packages/plugins/store-sqlite/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
  options?: { readonly?: boolean },
) => RawDatabase

describe(`open a ${fmt(LENGTH)}-event session, SQLite store`, async () => {
  const dir = tempDir('open-sqlite')
  const file = join(dir, 'big.sqlite')
  const lines = join(dir, 'big.jsonl')
  {
    const generated = performance.now()
    const log = sessionLog(LENGTH)
    const creator = sqliteStore({ file })
    await (await creator.create(header('big'), log)).writer.close()
    await creator.close()
    let text = '{"bosun":"session","id":"big","version":1,"createdAt":1700000000000}\n'
    for (const event of log) text += JSON.stringify(event) + '\n'
    await writeFile(lines, text)
    const { size } = await stat(file)
    report(`open-sqlite: generated ${fmt(LENGTH)} events, database ${fmt(size / 1e6, 1)} MB, in ${fmt(performance.now() - generated)} ms`)
  }
  const store = sqliteStore({ file })

  /** Keeps a result alive until the next iteration starts, so no work can be optimised away. */
  const sink: unknown[] = []
  const contenders: OpenContender[] = []
  const contender = (name: string, open: () => Promise<number>) => contenders.push([name, open])

  contender('plain: readFile + split + JSON.parse each line (same events as JSONL)', async () => {
    const all = (await readFile(lines, 'utf8')).split('\n')
    all.pop()
    const events: unknown[] = new Array(all.length - 1)
    for (let i = 1; i < all.length; i++) events[i - 1] = JSON.parse(all[i]!)
    sink[0] = events[events.length - 1]
    return events.length
  })

  contender('raw SQLite: SELECT all rows + JSON.parse(data)', async () => {
    const db = new Database(file, { readonly: true })
    try {
      // Layout 2 (schema.ts): the session's rows by key range; a packed row of chunks holds `count` events.
      const { key } = db.prepare('SELECT key FROM sessions WHERE id = ?').get('big')!
      const rows = db.prepare('SELECT key - (? << 32) AS seq, time, type, data, extra, count FROM events WHERE key >= (? << 32) AND key < ((? + 1) << 32) ORDER BY key').all(key, key, key)
      const events: unknown[] = []
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!
        if (row.count === 1) events.push({ seq: row.seq, time: row.time, type: row.type, data: JSON.parse(row.data) })
        else (JSON.parse(row.data) as unknown[]).forEach((data, j) => events.push({ seq: row.seq + j, time: row.time, type: row.type, data }))
      }
      sink[0] = events[events.length - 1]
      return events.length
    } finally {
      db.close()
    }
  })

  contenders.push(...storeContenders(store, 'big', sink))
  openRounds('open-sqlite', LENGTH, contenders, sink, store, dir)
})
