/**
 * The database layout, in SQL. `PRAGMA user_version` holds {@link SCHEMA_VERSION}; a database with
 * a larger number was written by a newer build and is refused, one with a smaller number is
 * migrated when it is first opened for writing (see {@link MIGRATE_1_TO_2}).
 *
 * Layout 2 keys each row of `events` by one integer, `(session key << 32) + seq` — a rowid table,
 * whose rows of one session are adjacent and whose appends go at the end of that session's range.
 * Layout 1 keyed them by `(session_id TEXT, seq)` in a WITHOUT ROWID table, an index b-tree: its
 * rows spill to overflow pages beyond ~1 KB of payload, and every page split rewrote up to three
 * sibling leaves and their parent — 43–61 KB of WAL frames per agent turn. A run of consecutive
 * `assistant/chunk` events of one batch is one row (its `count` says how many), and new databases
 * use 1 KiB pages: a commit writes the pages it changes whole, so smaller pages mean fewer bytes
 * per commit. Together: about 10 KB of WAL per turn (docs/benchmarks.md, figure 4).
 *
 * Layout 3 (the event rows as in layout 2) gives each session its key with `AUTOINCREMENT`: a key
 * is never given twice, even once its session's row is gone. Layout 2 gave `MAX(key) + 1`, so a
 * session deleted by hand (its `sessions` row removed, its event rows left) had its key given to
 * the next new session, which then read the old rows as its own log.
 */

/** The layout version this build writes (kept in `PRAGMA user_version`). */
export const SCHEMA_VERSION = 3

/** How long a statement waits for another connection's write lock before failing (`busy_timeout`). */
export const BUSY_TIMEOUT_MS = 5_000

/**
 * The page size of a database this build creates (set before the first write; an existing
 * database keeps its own). A commit appends every page it changed to the WAL, whole.
 */
export const NEW_DATABASE_PAGE_SIZE = 1024

/** Event rows hold seqs below 2^32: a row's key is `(session key << 32) + seq`. */
export const MAX_EVENTS_PER_SESSION = 2 ** 32

/** At most this many chunk events are packed into one row. */
export const MAX_EVENTS_PER_ROW = 256

/** The event type whose runs are packed: a model's stream, most of a log's rows. */
export const PACKED_TYPE = 'assistant/chunk'

/** The events of layout 2 (see the top of this file; the README's "Tables" explains each column). */
const EVENTS_TABLE = `CREATE TABLE events (
  key   INTEGER PRIMARY KEY,
  time  INTEGER NOT NULL,
  type  TEXT NOT NULL,
  data  TEXT NOT NULL,
  extra TEXT,
  count INTEGER NOT NULL DEFAULT 1,
  times TEXT
);`

/**
 * The sessions of layout 3: `key` is the rowid, `AUTOINCREMENT` so that SQLite never gives a key
 * again (`sqlite_sequence` keeps the largest ever given), whatever rows were deleted since. Same
 * columns, in the same order, as layout 2's table (whose `key` was `MAX(key) + 1`, unique by index).
 */
const SESSIONS_TABLE = `CREATE TABLE sessions (
  id         TEXT NOT NULL UNIQUE,
  header     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  parent     TEXT,
  key        INTEGER PRIMARY KEY AUTOINCREMENT
);`

/** Creates the tables of layout version 3 in an empty database (run once, inside a write transaction). */
export const CREATE_TABLES = `
${SESSIONS_TABLE}
${EVENTS_TABLE}
${sessionEventsView(false)}
`

/**
 * Layout 1 → 2, in the transaction that bumps `user_version`: the rows of layout 1 stay where they
 * are (`events` renamed `events_v1`, read before a session's newer rows, never written again), the
 * sessions get their keys, and the events written from now on go to the new `events` table.
 * {@link migrate2To3} follows it in the same transaction.
 */
export const MIGRATE_1_TO_2 = `
ALTER TABLE events RENAME TO events_v1;
ALTER TABLE sessions ADD COLUMN key INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET key = rowid;
CREATE UNIQUE INDEX sessions_key ON sessions (key);
${EVENTS_TABLE}
${sessionEventsView(true)}
`

/**
 * Layout 2 → 3, in the transaction that bumps `user_version`: the sessions table is rebuilt with
 * `AUTOINCREMENT` keys (each session keeps its key, so its event rows stay its own), and the
 * sequence starts past every key in use — a session's and any left in `events` by a session deleted
 * by hand — so no new session gets a key that has rows. The event rows are not touched. `legacy`:
 * the database was migrated from layout 1 (`events_v1`, shown first by the view).
 */
export function migrate2To3(legacy: boolean): string {
  return `
DROP VIEW session_events;
ALTER TABLE sessions RENAME TO sessions_v2;
${SESSIONS_TABLE}
INSERT INTO sessions (id, header, created_at, parent, key) SELECT id, header, created_at, parent, key FROM sessions_v2 ORDER BY key;
DROP TABLE sessions_v2;
INSERT INTO sqlite_sequence (name, seq) SELECT 'sessions', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'sessions');
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT MAX(key) >> 32 FROM events), 0)) WHERE name = 'sessions';
${sessionEventsView(legacy)}
`
}

/**
 * `session_events`: the rows with the session id and seq spelled out, for reading a log by hand
 * (`SELECT seq, count, type, data FROM session_events WHERE session_id = 'main' ORDER BY seq`);
 * a packed row shows as one row whose `count` is above 1 and whose `data` is the array of its
 * events' data. With layout 1 rows (a migrated database) those come first, each with count 1.
 */
function sessionEventsView(legacy: boolean): string {
  const rows = `SELECT s.id AS session_id, e.key - (s.key << 32) AS seq, e.count AS count, e.time AS time, e.times AS times, e.type AS type, e.data AS data, e.extra AS extra
  FROM sessions s JOIN events e ON e.key >= (s.key << 32) AND e.key < ((s.key + 1) << 32)`
  const old = `SELECT session_id, seq, 1 AS count, time, NULL AS times, type, data, extra FROM events_v1`
  return `CREATE VIEW session_events AS ${legacy ? `${old} UNION ALL ` : ''}${rows};`
}

/**
 * Each session's list summary (`LogSummary` of @bosun/core: last activity, turns, first prompt,
 * pending count) as JSON, written in the same savepoint as every batch of its events, with the
 * `length` it was computed at. Not part of the layout version: a database without it gets it on
 * open, and a build that does not know it leaves it behind — `list()` uses a summary only while
 * its `length` is the session's, and reads nothing else otherwise.
 */
export const CREATE_SUMMARIES = `CREATE TABLE IF NOT EXISTS session_summaries (
  id      TEXT PRIMARY KEY NOT NULL,
  length  INTEGER NOT NULL,
  summary TEXT NOT NULL
);`

/** The bounds of a session's keys; both parameters are the session key. */
const RANGE = 'key >= (? << 32) AND key < ((? + 1) << 32)'

/**
 * Every statement the store runs, prepared once per database connection. Positional parameters
 * only (better-sqlite3 binds `?NNN` by count, not by number): a session key used twice is passed twice.
 */
export const SQL = {
  selectSession: 'SELECT header, key FROM sessions WHERE id = ?',
  /** The new row's key is its rowid (`AUTOINCREMENT`: never one given before). */
  insertSession: 'INSERT INTO sessions (id, header, created_at, parent) VALUES (?, ?, ?, ?)',
  sessionKey: 'SELECT key FROM sessions WHERE id = ?',
  /** Parameters: the session key three times. */
  selectEvents: `SELECT key - (? << 32) AS seq, time, type, data, extra, count, times FROM events WHERE ${RANGE} ORDER BY key`,
  /** Parameters: session key, seq, time, type, data, extra, count, times. */
  insertEvent: 'INSERT INTO events (key, time, type, data, extra, count, times) VALUES ((? << 32) | ?, ?, ?, ?, ?, ?, ?)',
  /**
   * The seq the next append must bring: one past the last row's events (a rowid range: O(log n));
   * no row when the session has none here. Parameters: the session key three times.
   */
  nextSeq: `SELECT key - (? << 32) + count AS next FROM events WHERE ${RANGE} ORDER BY key DESC LIMIT 1`,
  /**
   * The rows holding seqs `from` … `to - 1` of a session: a rowid range, as long as what it returns
   * (a packed row starts at most MAX_EVENTS_PER_ROW - 1 seqs before `from`). Parameters: the session
   * key twice, the first seq a row may start at, the session key, `to`.
   */
  selectEventRange: 'SELECT key - (? << 32) AS seq, time, type, data, extra, count, times FROM events WHERE key >= (? << 32) + ? AND key < (? << 32) + ? ORDER BY key',
  /** One session's row, its length (as `nextSeq` reads it) and its stored summary. Parameter: session id. */
  selectSummary: `SELECT s.created_at AS createdAt, s.parent AS parent,
    (SELECT e.key - (s.key << 32) + e.count FROM events e WHERE e.key >= (s.key << 32) AND e.key < ((s.key + 1) << 32) ORDER BY e.key DESC LIMIT 1) AS length,
    m.length AS summaryLength, m.summary AS summary
    FROM sessions s LEFT JOIN session_summaries m ON m.id = s.id WHERE s.id = ?`,
  /** Parameters: session id, length, summary JSON. */
  upsertSummary: 'INSERT INTO session_summaries (id, length, summary) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET length = excluded.length, summary = excluded.summary',
  listSessions: `SELECT s.id AS id, s.created_at AS createdAt, s.parent AS parent, s.header AS header,
    (SELECT e.key - (s.key << 32) + e.count FROM events e WHERE e.key >= (s.key << 32) AND e.key < ((s.key + 1) << 32) ORDER BY e.key DESC LIMIT 1) AS length,
    m.length AS summaryLength, m.summary AS summary
    FROM sessions s LEFT JOIN session_summaries m ON m.id = s.id ORDER BY s.created_at, s.id`,
  /** Removing a session (`Connection.removeSession`): its event rows (parameters: the session key twice), list summary and row (parameter: session id). */
  remove: {
    events: `DELETE FROM events WHERE ${RANGE}`,
    summary: 'DELETE FROM session_summaries WHERE id = ?',
    session: 'DELETE FROM sessions WHERE id = ?',
  },
  /** A migrated database's layout 1 rows. */
  legacy: {
    selectEvents: 'SELECT seq, time, type, data, extra, 1 AS count, NULL AS times FROM events_v1 WHERE session_id = ? ORDER BY seq',
    /** Seqs `from` … `to - 1` (one event a row): a range of layout 1's primary key. Parameters: session id, from, to. */
    selectRange: 'SELECT seq, time, type, data, extra, 1 AS count, NULL AS times FROM events_v1 WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq',
    nextSeq: 'SELECT MAX(seq) + 1 AS next FROM events_v1 WHERE session_id = ?',
    listLengths: 'SELECT session_id AS id, MAX(seq) + 1 AS length FROM events_v1 GROUP BY session_id',
    /** Parameter: session id. */
    deleteEvents: 'DELETE FROM events_v1 WHERE session_id = ?',
  },
} as const
