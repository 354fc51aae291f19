/**
 * The database layout, in SQL, for the tables of one PostgreSQL schema (the `schema` option,
 * validated as a plain lower-case identifier before it is put into a statement). The
 * `bosun_schema` table holds {@link SCHEMA_VERSION}: a larger number was written by a newer
 * build and is refused; a smaller one is migrated when the store first connects.
 *
 * - `sessions`: one row per session, with `length` — the number of stored events. Every append
 *   checks and moves it in the same statement, so the next seq is read from one row, never from
 *   the history. `status` (layout 2) is `running` from a committed `turn/start` to its `turn/end`,
 *   then `idle` (null: no turn yet), moved by the same statement: any host learns which sessions
 *   run from one indexed query, without reading a log. `summary` (layout 3) is the session's
 *   list summary (`LogSummary` of @bosun/core, JSON with the `length` it was computed at), also
 *   written by every append: `list()` gives it only while its length is the session's.
 * - `session_events (session_id, seq, type, time, data, extra)`, primary key `(session_id, seq)`:
 *   one row per event; `data` and `extra` are JSON text, kept byte for byte (not `jsonb`, which
 *   reorders keys and refuses `\u0000`).
 * - `session_leases (session_id, owner, epoch, expires_at)`: who may write a session, until when
 *   (the database clock), and the fencing epoch, raised by every takeover.
 * - `session_mailbox`: messages admitted by any host for a session's owner to splice, keyed by
 *   the client's message id (idempotent), with where each was delivered. `claimed_epoch` (layout
 *   4) is the lease epoch under which the owner began to run the entry (`mailbox.claim`): a splice
 *   of the id marks delivered only an entry claimed under the epoch it is written with. Its
 *   `session_id` references `sessions` (layout 5, ON DELETE CASCADE): mail only for a stored session.
 */

/** The layout version this build writes. */
export const SCHEMA_VERSION = 5

/** The LISTEN/NOTIFY channels of a schema: an append, a mailbox insert, a session's status change, a session made. */
export const channels = (schema: string) => ({ events: `${schema}_events`, mailbox: `${schema}_mailbox`, status: `${schema}_status`, sessions: `${schema}_sessions` }) as const

/** Creates the version table (if missing) and reads it, under a lock that serialises concurrent first connections. */
export const prepareSql = (s: string) => ({
  lock: `SELECT pg_advisory_xact_lock(hashtext('bosun-store-postgres:' || $1::text))`,
  create: `CREATE SCHEMA IF NOT EXISTS "${s}"; CREATE TABLE IF NOT EXISTS "${s}".bosun_schema (version integer NOT NULL)`,
  version: `SELECT max(version) AS version FROM "${s}".bosun_schema`,
  setVersion: `DELETE FROM "${s}".bosun_schema; INSERT INTO "${s}".bosun_schema (version) VALUES (${SCHEMA_VERSION})`,
})

/** Migrations by the version they start from: `migrations[0]` creates layout 1 in an empty schema. */
export const migrations = (s: string): readonly string[] => [
  `CREATE TABLE "${s}".sessions (
     id text PRIMARY KEY,
     header text NOT NULL,
     created_at double precision NOT NULL,
     parent text,
     length integer NOT NULL DEFAULT 0 CHECK (length >= 0)
   );
   CREATE TABLE "${s}".session_events (
     session_id text NOT NULL,
     seq integer NOT NULL CHECK (seq >= 0),
     type text NOT NULL,
     time double precision NOT NULL,
     data text NOT NULL,
     extra text,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE "${s}".session_leases (
     session_id text PRIMARY KEY REFERENCES "${s}".sessions (id) ON DELETE CASCADE,
     owner text NOT NULL,
     epoch bigint NOT NULL,
     expires_at timestamptz NOT NULL
   );
   CREATE TABLE "${s}".session_mailbox (
     id bigserial UNIQUE,
     session_id text NOT NULL,
     message_id text NOT NULL,
     kind text NOT NULL,
     body text NOT NULL,
     admitted_by text,
     created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     delivered_seq integer,
     done_at timestamptz,
     outcome text,
     PRIMARY KEY (session_id, message_id)
   );
   CREATE INDEX session_mailbox_open ON "${s}".session_mailbox (session_id, id) WHERE delivered_seq IS NULL AND done_at IS NULL;`,
  // Layout 2: each session's live status (a session mid-turn when migrated reads as idle until its next turn).
  `ALTER TABLE "${s}".sessions ADD COLUMN status text CHECK (status IN ('running', 'idle'));
   CREATE INDEX sessions_running ON "${s}".sessions (id) WHERE status = 'running';`,
  // Layout 3: each session's list summary (null for the sessions already there, until their next batch).
  `ALTER TABLE "${s}".sessions ADD COLUMN summary text;`,
  // Layout 4: which lease epoch began to run each mailbox entry (entries already there are claimed when next run).
  `ALTER TABLE "${s}".session_mailbox ADD COLUMN claimed_epoch bigint;`,
  // Layout 5: mail only for a stored session, and gone with it. The mailbox took posts for any id,
  // so a post that committed after its session's removal (a relay, a lost owner's hand-over) was
  // left pending for ever, and a session made later under the id ran it. The foreign key's check
  // takes the session's row FOR KEY SHARE: a post racing a removal (which locks that row FOR
  // UPDATE, removal.ts) waits for it and is refused, or commits first and is deleted with it. Mail
  // of no stored session — what earlier builds left — is deleted first, with both tables locked so
  // an earlier build's host still running cannot add more before the key is checked.
  `LOCK TABLE "${s}".sessions, "${s}".session_mailbox IN SHARE ROW EXCLUSIVE MODE;
   DELETE FROM "${s}".session_mailbox m WHERE NOT EXISTS (SELECT 1 FROM "${s}".sessions t WHERE t.id = m.session_id);
   ALTER TABLE "${s}".session_mailbox ADD CONSTRAINT session_mailbox_session_fkey
     FOREIGN KEY (session_id) REFERENCES "${s}".sessions (id) ON DELETE CASCADE;`,
]

/** Every statement the store runs against schema `s`. */
export const statements = (s: string) => ({
  selectSession: `SELECT header, length FROM "${s}".sessions WHERE id = $1`,
  insertSession: `INSERT INTO "${s}".sessions (id, header, created_at, parent, length, summary) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING 1 AS created`,
  insertEvents: `INSERT INTO "${s}".session_events (session_id, seq, type, time, data, extra)
    SELECT $1, e.seq, e.type, e.time, e.data, e.extra FROM unnest($2::int[], $3::text[], $4::float8[], $5::text[], $6::text[]) AS e(seq, type, time, data, extra)`,
  /** A session's events from `$2` on, ordered (at most `$3` of them): an index range, as long as what it returns. */
  selectEvents: `SELECT seq, type, time, data, extra FROM "${s}".session_events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq LIMIT $4`,
  listSessions: `SELECT id, created_at AS "createdAt", parent, header, length, summary FROM "${s}".sessions ORDER BY created_at, id`,
  /** One session's row as a list item (its primary key: no log read). */
  selectSummary: `SELECT created_at AS "createdAt", parent, length, summary FROM "${s}".sessions WHERE id = $1`,
  /** The sessions mid-turn (a partial index: as long as what it returns). */
  runningSessions: `SELECT id FROM "${s}".sessions WHERE status = 'running' ORDER BY id`,
  /** One session's status (its primary key: no log read). */
  sessionStatus: `SELECT status FROM "${s}".sessions WHERE id = $1`,
  /**
   * One write-behind batch, one statement (so one transaction, one round trip): the caller's lease
   * row is read `FOR SHARE` (a takeover's UPDATE of it waits for this statement, and every later
   * batch sees the new epoch), `length` moves from `$4` only if it is `$4` and the epoch is `$3`,
   * the events go in only if it moved (the primary key refuses a seq stored twice), and the
   * mailbox messages the batch splices are marked delivered — those this owner claimed under this
   * epoch (`mailbox.claim`), not another entry of the same id posted meanwhile. The final SELECT sees the
   * statement's snapshot: `stored` is the length before this batch, `epoch` and `holder` the lease
   * row's whoever holds it (a refusal names the takeover's epoch). `held` is the epoch of the row
   * the lock got, null when it is no longer this owner's: a takeover that commits while the
   * statement waits for the lock is seen there, not in the snapshot, which still shows this
   * owner. (The NOTIFY follows the
   * commit: notifier.ts says why.) Parameters: session, owner, epoch, first seq, types, times,
   * data, extras, delivered message ids and their seqs, the status the batch leaves (null: unchanged),
   * the summary after the batch.
   */
  append: `WITH lease AS (
      SELECT epoch FROM "${s}".session_leases WHERE session_id = $1 AND owner = $2 FOR SHARE
    ), bump AS (
      UPDATE "${s}".sessions SET length = $4::int + cardinality($5::text[]), status = COALESCE($11::text, status), summary = $12::text
      WHERE id = $1 AND length = $4::int AND (SELECT epoch FROM lease) = $3::bigint
      RETURNING length
    ), ins AS (
      INSERT INTO "${s}".session_events (session_id, seq, type, time, data, extra)
      SELECT $1, $4::int + e.n::int - 1, e.type, e.time, e.data, e.extra
      FROM unnest($5::text[], $6::float8[], $7::text[], $8::text[]) WITH ORDINALITY AS e(type, time, data, extra, n)
      WHERE EXISTS (SELECT 1 FROM bump)
      RETURNING 1
    ), delivered AS (
      UPDATE "${s}".session_mailbox m SET delivered_seq = d.seq
      FROM unnest($9::text[], $10::int[]) AS d(message_id, seq)
      WHERE EXISTS (SELECT 1 FROM bump) AND m.session_id = $1 AND m.message_id = d.message_id AND m.delivered_seq IS NULL
        AND m.claimed_epoch = $3::bigint
      RETURNING 1
    )
    SELECT (SELECT epoch::text FROM lease) AS held,
      (SELECT epoch::text FROM "${s}".session_leases WHERE session_id = $1) AS epoch,
      (SELECT owner FROM "${s}".session_leases WHERE session_id = $1) AS holder,
      (SELECT length FROM "${s}".sessions WHERE id = $1) AS stored,
      (SELECT count(*) FROM ins)::int AS inserted,
      (SELECT count(*) FROM delivered)::int AS delivered`,
  /**
   * The batches of several sessions, one statement (group commit: one transaction, one WAL flush
   * for all of them), each checked as `append` checks one: a batch whose lease epoch or first seq
   * does not hold is left out, the others are written. One row back per batch: `written`, `held`
   * (as in `append`), and for a batch left out the lease and length as the statement's snapshot
   * saw them. Parameters:
   * per batch (session, epoch, first seq, count, status left or null, summary after it); the owner; per event
   * (session, seq, type, time, data, extra); per delivered message (session, message id, seq).
   */
  appendGroup: `WITH b AS (
      SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::int[], $15::text[], $16::text[]) AS b(session_id, epoch, first, count, status, summary)
    ), lease AS (
      SELECT l.session_id, l.epoch FROM "${s}".session_leases l WHERE l.session_id IN (SELECT session_id FROM b) AND l.owner = $5 FOR SHARE
    ), bump AS (
      UPDATE "${s}".sessions t SET length = b.first + b.count, status = COALESCE(b.status, t.status), summary = b.summary
      FROM b JOIN lease ON lease.session_id = b.session_id AND lease.epoch = b.epoch
      WHERE t.id = b.session_id AND t.length = b.first
      RETURNING t.id
    ), ins AS (
      INSERT INTO "${s}".session_events (session_id, seq, type, time, data, extra)
      SELECT e.session_id, e.seq, e.type, e.time, e.data, e.extra
      FROM unnest($6::text[], $7::int[], $8::text[], $9::float8[], $10::text[], $11::text[]) AS e(session_id, seq, type, time, data, extra)
      WHERE e.session_id IN (SELECT id FROM bump)
      RETURNING 1
    ), delivered AS (
      UPDATE "${s}".session_mailbox m SET delivered_seq = d.seq
      FROM unnest($12::text[], $13::text[], $14::int[]) AS d(session_id, message_id, seq) JOIN b ON b.session_id = d.session_id
      WHERE d.session_id IN (SELECT id FROM bump) AND m.session_id = d.session_id AND m.message_id = d.message_id AND m.delivered_seq IS NULL
        AND m.claimed_epoch = b.epoch
      RETURNING 1
    )
    SELECT b.session_id AS session,
      EXISTS (SELECT 1 FROM bump WHERE bump.id = b.session_id) AS written,
      (SELECT lease.epoch::text FROM lease WHERE lease.session_id = b.session_id) AS held,
      (SELECT l.epoch::text FROM "${s}".session_leases l WHERE l.session_id = b.session_id) AS epoch,
      (SELECT l.owner FROM "${s}".session_leases l WHERE l.session_id = b.session_id) AS holder,
      (SELECT t.length FROM "${s}".sessions t WHERE t.id = b.session_id) AS stored,
      (SELECT count(*) FROM ins)::int AS inserted,
      (SELECT count(*) FROM delivered)::int AS delivered
    FROM b`,
})
