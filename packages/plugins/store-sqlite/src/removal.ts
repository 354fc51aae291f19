import type Database from 'better-sqlite3'
import { SQL } from './schema.js'

/**
 * Deletes one session — its event rows (and, in a database migrated from layout 1, its rows of
 * `events_v1`), its list summary and its `sessions` row — in one `BEGIN IMMEDIATE` transaction:
 * committed with `synchronous=FULL` before it returns, so a crash after it does not bring the
 * session back, and a crash before the commit leaves it whole. Its key is never given again
 * (`AUTOINCREMENT`, schema.ts): a session later created with the same id gets a new key and an
 * empty log, and a writer another store still holds for the removed one finds no row at its key
 * (database.ts refuses its next batch).
 *
 * `secure_delete` is on for the transaction: the freed pages and cells are overwritten with zeros,
 * so the conversation is not left readable in the file's free space (a removal is often for
 * privacy). Copies in the WAL file last until SQLite reuses that part of it (README, "Removing a
 * session"). Returns the removed session's key, or `undefined` when no session has the id.
 */
export function prepareRemoval(db: Database.Database, legacy: boolean): (id: string) => number | undefined {
  const sessionKey = db.prepare<[string], number>(SQL.sessionKey).pluck()
  const deleteEvents = db.prepare<[number, number]>(SQL.remove.events)
  const deleteSummary = db.prepare<[string]>(SQL.remove.summary)
  const deleteSession = db.prepare<[string]>(SQL.remove.session)
  const deleteLegacy = legacy ? db.prepare<[string]>(SQL.legacy.deleteEvents) : undefined
  const remove = db.transaction((id: string): number | undefined => {
    const key = sessionKey.get(id)
    if (key === undefined) return undefined
    deleteEvents.run(key, key)
    deleteLegacy?.run(id)
    deleteSummary.run(id)
    deleteSession.run(id)
    return key
  })
  return (id) => {
    const before = db.pragma('secure_delete', { simple: true }) as number
    db.pragma('secure_delete = ON')
    try {
      // IMMEDIATE: take the write lock first, so a concurrent writer waits (busy_timeout) instead of failing.
      return remove.immediate(id)
    } finally {
      db.pragma(`secure_delete = ${before === 2 ? 'FAST' : before}`)
    }
  }
}
