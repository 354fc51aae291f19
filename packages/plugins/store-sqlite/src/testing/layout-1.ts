import type { SessionEvent } from '@bosun/core'
import { header, withDatabase } from './temp.js'

/** Layout 1, as version 1 of this package created it (schema.ts: MIGRATE_1_TO_2 migrates it). */
const LAYOUT_1 = `
CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, header TEXT NOT NULL, created_at INTEGER NOT NULL, parent TEXT);
CREATE TABLE events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
PRAGMA user_version = 1;
`

/**
 * Writes a layout 1 database at `file` (4 KiB pages, as SQLite's default) holding `sessions`, one
 * row per event, as version 1 of this package wrote them: for the tests of the migration.
 */
export function writeLayout1(file: string, sessions: Record<string, readonly SessionEvent[]>): void {
  withDatabase(file, (db) => {
    db.pragma('journal_mode = WAL')
    db.exec(LAYOUT_1)
    const insertSession = db.prepare('INSERT INTO sessions VALUES (?, ?, ?, NULL)')
    const insertEvent = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)')
    for (const [id, events] of Object.entries(sessions)) {
      insertSession.run(id, JSON.stringify(header(id)), 1_700_000_000_000)
      for (const e of events) {
        const { seq, time, type, data, ...rest } = e
        insertEvent.run(id, seq, time, type, JSON.stringify(data), Object.keys(rest).length ? JSON.stringify(rest) : null)
      }
    }
  })
}
