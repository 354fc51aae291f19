/**
 * The database layout, in SQL. `PRAGMA user_version` holds {@link SCHEMA_VERSION}; a database with
 * a larger number was written by a newer build and is refused.
 */

/** The layout version this build writes (kept in `PRAGMA user_version`). */
export const SCHEMA_VERSION = 1

/** How long a statement waits for another connection's write lock before failing (`busy_timeout`). */
export const BUSY_TIMEOUT_MS = 5_000

/** Creates the tables of layout version 1 (run once, inside a write transaction). */
export const CREATE_TABLES = `
CREATE TABLE IF NOT EXISTS sessions (
  id         TEXT PRIMARY KEY NOT NULL,
  header     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  parent     TEXT
);
CREATE TABLE IF NOT EXISTS events (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  time       INTEGER NOT NULL,
  type       TEXT NOT NULL,
  data       TEXT NOT NULL,
  extra      TEXT,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
`

/** Every statement the store runs, prepared once per database connection. */
export const SQL = {
  selectSession: 'SELECT header FROM sessions WHERE id = ?',
  insertSession: 'INSERT INTO sessions (id, header, created_at, parent) VALUES (?, ?, ?, ?)',
  selectEvents: 'SELECT seq, time, type, data, extra FROM events WHERE session_id = ? ORDER BY seq',
  insertEvent: 'INSERT INTO events (session_id, seq, time, type, data, extra) VALUES (?, ?, ?, ?, ?, ?)',
  /** The seq the next append must bring: one past the largest stored (the primary key makes it O(log n)). */
  nextSeq: 'SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM events WHERE session_id = ?',
  listSessions: `SELECT s.id AS id, s.created_at AS createdAt, s.parent AS parent,
    (SELECT COALESCE(MAX(e.seq) + 1, 0) FROM events e WHERE e.session_id = s.id) AS length
    FROM sessions s ORDER BY s.created_at, s.id`,
} as const
