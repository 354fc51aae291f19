import type { SessionEvent } from '@bosun/core'
import { header, withDatabase } from './temp.js'

/**
 * Layout 2, as the version of this package since a212ea3 created it (schema.ts: migrate2To3
 * migrates it): session keys given as `MAX(key) + 1`, event rows keyed `(key << 32) | seq`.
 */
const LAYOUT_2 = `
PRAGMA page_size = 1024;
CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, header TEXT NOT NULL, created_at INTEGER NOT NULL, parent TEXT, key INTEGER NOT NULL);
CREATE UNIQUE INDEX sessions_key ON sessions (key);
CREATE TABLE events (key INTEGER PRIMARY KEY, time INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, extra TEXT, count INTEGER NOT NULL DEFAULT 1, times TEXT);
CREATE VIEW session_events AS SELECT s.id AS session_id, e.key - (s.key << 32) AS seq, e.count AS count, e.time AS time, e.times AS times, e.type AS type, e.data AS data, e.extra AS extra
  FROM sessions s JOIN events e ON e.key >= (s.key << 32) AND e.key < ((s.key + 1) << 32);
CREATE TABLE session_summaries (id TEXT PRIMARY KEY NOT NULL, length INTEGER NOT NULL, summary TEXT NOT NULL);
PRAGMA user_version = 2;
`

/**
 * Writes a layout 2 database at `file` holding `sessions` (one row per event, keys 1, 2, … in
 * order, as that version's `MAX(key) + 1` gave them), without summaries: for the tests of the migration.
 */
export function writeLayout2(file: string, sessions: Record<string, readonly SessionEvent[]>): void {
  withDatabase(file, (db) => {
    db.exec(LAYOUT_2)
    db.pragma('journal_mode = WAL')
    const insertSession = db.prepare(`INSERT INTO sessions VALUES (?, ?, ?, NULL, (SELECT COALESCE(MAX(key), 0) + 1 FROM sessions))`)
    const insertEvent = db.prepare(`INSERT INTO events (key, time, type, data, extra) VALUES ((SELECT key FROM sessions WHERE id = ?) << 32 | ?, ?, ?, ?, ?)`)
    for (const [id, events] of Object.entries(sessions)) {
      insertSession.run(id, JSON.stringify(header(id)), 1_700_000_000_000)
      for (const e of events) {
        const { seq, time, type, data, ...rest } = e
        insertEvent.run(id, seq, time, type, JSON.stringify(data), Object.keys(rest).length ? JSON.stringify(rest) : null)
      }
    }
  })
}
