import type Database from 'better-sqlite3'
import { afterEach, beforeEach } from 'vitest'
import { sqliteStore, type SqliteStore } from '../store.js'
import { tempDatabase, withDatabase } from './temp.js'

/**
 * For a test file: a fresh database path per test (`file()`), `make()` for a store on it (closed
 * after the test, its writers' timers out of the way: batches are written by flush and close) and
 * `raw(fn)` for a connection of the test's own, to build, inspect or damage the file.
 */
export function tempStores(): { file: () => string; make: () => SqliteStore; raw: <T>(fn: (db: Database.Database) => T) => T } {
  let file = ''
  let cleanup: () => Promise<void> = async () => {}
  const open: SqliteStore[] = []
  beforeEach(async () => ({ file, cleanup } = await tempDatabase()))
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close().catch(() => {})
    await cleanup()
  })
  return {
    file: () => file,
    make: () => {
      const store = sqliteStore({ file, batchWindowMs: 60_000 })
      open.push(store)
      return store
    },
    raw: (fn) => withDatabase(file, fn),
  }
}
