import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { BosunError, ErrorCodes } from '@bosun/core'
import type { SessionHeader } from '@bosun/core'
import { packRows, type EventRow, type StoredRow } from './codec.js'
import { storeError } from './errors.js'
import { checkDatabaseFiles } from './file-safety.js'
import { writeMissingSummaries, type SummaryHooks } from './migrate-summaries.js'
import { prepareRemoval } from './removal.js'
import {
  BUSY_TIMEOUT_MS, CREATE_SUMMARIES, CREATE_TABLES, MAX_EVENTS_PER_ROW, MAX_EVENTS_PER_SESSION, MIGRATE_1_TO_2, NEW_DATABASE_PAGE_SIZE, migrate2To3, PACKED_TYPE, SCHEMA_VERSION, SQL,
} from './schema.js'

/** @internal Counters for tests and diagnostics; not part of the public API. */
export interface ConnectionStats {
  /** Write-behind transactions committed (one per commit round, holding every queued writer's batch). */
  commits: number
  /** Write-behind batches rolled back (a batch refused inside a round, or every batch of a failed round). */
  rollbacks: number
  /** Events written by committed batches. */
  events: number
}

/**
 * A writer waiting on its connection's commit queue. The round calls `pendingRows()` to take
 * everything it has queued at that moment, then `settle()` with the outcome of exactly those
 * rows; both run synchronously within the round (no append can happen in between).
 */
export interface CommitMember {
  readonly session: string
  /**
   * The session's key (`sessions.key`) when the writer opened or created it: a batch goes to that
   * session only — not to another one made with the same id after a removal (removal.ts).
   */
  readonly key: number
  /** Every row queued now, in order; empty when there is nothing to write. */
  pendingRows(): readonly EventRow[]
  /**
   * The session's list summary once the `rows` first rows are written (schema.ts, `session_summaries`),
   * written with them; `undefined`: none is written.
   */
  summaryAfter?(rows: number): StoredSummary | undefined
  /** `error` undefined: the `rows` first rows were committed. Otherwise they were rolled back. */
  settle(rows: number, error: unknown): void
}

/** A row of `session_summaries`: the summary's JSON and the log length it was computed at. */
export interface StoredSummary {
  length: number
  summary: string
}

type Outcome = { ok: true } | { ok: false; error: unknown }

/** For a list row, the seq from which its log's rows are read with it; `undefined`: none. */
export type TailFrom = (summary: string | null, summaryLength: number | null, length: number) => number | undefined

interface ListRow {
  id: string
  createdAt: number
  parent: string | null
  /** The header's JSON (small: read for the list entry's `delegation`). */
  header: string
  length: number
  /** The stored summary's JSON, or null; only valid when `summaryLength` is `length`. */
  summary: string | null
  summaryLength: number | null
}

/** One open database: the connection, its statements (prepared once) and its transactions. */
export interface Connection {
  readonly file: string
  readonly db: Database.Database
  readonly stats: ConnectionStats
  /** Inserts a session, its seed and its summary in one transaction; SESSION_EXISTS if the id is taken. Returns its key. */
  createSession(header: SessionHeader, seed: readonly EventRow[], summary?: StoredSummary): number
  /**
   * Queues `member` for the next commit round (group commit). One macrotask later (`setImmediate`,
   * so that concurrent flushes of other sessions join), ONE `BEGIN IMMEDIATE` transaction writes
   * every queued member's rows, each batch inside its own SAVEPOINT (STALE_WRITER unless it
   * starts right after the stored log; a refused batch rolls back alone), then ONE `COMMIT`, and
   * each member is settled. A member already queued is not queued twice. Throws (STORE) when the
   * connection is closed.
   */
  requestCommit(member: CommitMember): void
  /**
   * Reads a session's header and rows in one read transaction (a consistent snapshot): a migrated
   * database's layout 1 rows first, then the rest, ordered by seq; a row may hold several events.
   */
  loadSession(id: string): { header: string; key: number; rows: StoredRow[] } | undefined
  /**
   * The rows holding seqs `from` … `to - 1` of a session, ordered (the first may start before
   * `from`: a packed row), in one read transaction; `undefined` for no such session. A rowid
   * range, and on a migrated database a range of `events_v1`'s key before it.
   */
  readRange(id: string, from: number, to: number): StoredRow[] | undefined
  /** One session's list row (no header) in one read transaction; `undefined` for no such session. */
  readSummary(id: string, tailFrom?: TailFrom): (Omit<ListRow, 'id' | 'header'> & { tail?: StoredRow[] }) | undefined
  /**
   * Deletes the session and everything of it in one committed transaction (removal.ts); false
   * when no session has the id. The caller refuses first while a writer of it is open.
   */
  removeSession(id: string): boolean
  /** Whether the session has a row (its key), reading none of its events. */
  hasSession(id: string): boolean
  /** The session's stored header (JSON), reading none of its events. */
  readHeader(id: string): string | undefined
  /**
   * Every session's list row, in one read transaction; with `tailFrom`, a row whose summary is
   * behind its log also gets the rows from where `tailFrom` says (summary-row.ts), in the same
   * transaction.
   */
  listSessions(tailFrom?: TailFrom): Array<ListRow & { tail?: StoredRow[] }>
  /** Runs a pending commit round at once, then closes the database. */
  close(): void
}

/**
 * A new database file is private to its owner (mode 0600), as JSONL's session files are: it holds
 * the conversations. SQLite would create it with 0644 (less the umask), readable by every user of
 * the machine, and gives its `-wal` and `-shm` files the database file's mode. An existing file
 * keeps its mode; `wx` never follows a link (checkDatabaseFiles has refused a dangling one).
 */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}

/**
 * Opens (creating if needed) the database at `file`: refuses a path that is not a regular file
 * (UNSAFE_STORE_FILE, see file-safety.ts) and a newer layout before touching anything, gives a new
 * database {@link NEW_DATABASE_PAGE_SIZE}-byte pages, then sets WAL and `synchronous=FULL`,
 * creates the tables or migrates an older layout (then writes the summaries a migrated session
 * lacks: `summaryHooks` lets a test watch), and prepares the statements.
 */
export function openDatabase(file: string, options: { summaryHooks?: SummaryHooks } = {}): Connection {
  try {
    mkdirSync(dirname(file), { recursive: true })
  } catch (error) {
    throw storeError(file, 'create the folder of the database', error)
  }
  try {
    checkDatabaseFiles(file)
  } catch (error) {
    throw storeError(file, 'check the database file', error)
  }
  try {
    createPrivately(file)
  } catch (error) {
    throw storeError(file, 'create the database file', error)
  }
  let db: Database.Database
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS })
  } catch (error) {
    throw storeError(file, 'open the database', error)
  }
  try {
    refuseNewerLayout(db, file)
    // Only a database with no page yet takes it (and only before WAL is set, which writes the header).
    if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma(`page_size = ${NEW_DATABASE_PAGE_SIZE}`)
    const mode = db.pragma('journal_mode = WAL', { simple: true })
    if (mode !== 'wal') {
      throw new BosunError(
        ErrorCodes.STORE,
        `SQLite store ${file}: the database cannot use write-ahead logging (journal_mode is "${String(mode)}"). Use a file on a local disk.`,
        { details: { file, journalMode: String(mode) } },
      )
    }
    db.pragma('synchronous = FULL')
    // Whether this connection migrated a database of layout 1 or 2 (and whether it has layout 1 rows).
    let migrated: { legacy: boolean } | undefined
    if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
      db.transaction(() => {
        // Re-read under the write lock: another process may have created or migrated the tables meanwhile.
        const version = refuseNewerLayout(db, file)
        if (version >= SCHEMA_VERSION) return
        if (version === 0) db.exec(CREATE_TABLES)
        if (version === 1) db.exec(MIGRATE_1_TO_2)
        if (version === 1 || version === 2) {
          const legacy = hasTable(db, 'events_v1')
          db.exec(migrate2To3(legacy))
          migrated = { legacy }
        }
        db.pragma(`user_version = ${SCHEMA_VERSION}`)
      }).immediate()
    }
    // Outside the layout version (schema.ts): a no-op once the table exists.
    db.exec(CREATE_SUMMARIES)
    // After the migration's commit, a session at a time: reading every log holds no write lock.
    if (migrated !== undefined) writeMissingSummaries(db, file, migrated.legacy, options.summaryHooks)
    return connect(db, file)
  } catch (error) {
    db.close()
    throw storeError(file, 'prepare the database', error)
  }
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
}

/** Returns the layout version, or throws UNSUPPORTED_LOG_VERSION if a newer build wrote it. */
function refuseNewerLayout(db: Database.Database, file: string): number {
  const version = db.pragma('user_version', { simple: true }) as number
  if (version > SCHEMA_VERSION) {
    throw new BosunError(
      ErrorCodes.UNSUPPORTED_LOG_VERSION,
      `SQLite store ${file}: the database has layout version ${version} (PRAGMA user_version), but this build of @bosun/plugin-store-sqlite reads up to version ${SCHEMA_VERSION}. Upgrade the plugin, or use another file.`,
      { details: { file, version, supported: SCHEMA_VERSION } },
    )
  }
  return version
}

/** A session id's key (`sessions.key`); layout 1's events are looked up by id. */
interface SessionRef {
  id: string
  key: number
}

function connect(db: Database.Database, file: string): Connection {
  const selectSession = db.prepare<[string], { header: string; key: number }>(SQL.selectSession)
  const insertSession = db.prepare<[string, string, number, string | null]>(SQL.insertSession)
  const sessionKey = db.prepare<[string], number>(SQL.sessionKey).pluck()
  const selectEvents = db.prepare<[number, number, number], StoredRow>(SQL.selectEvents)
  const insertEvent = db.prepare<[number, number, number, string, string, string | null, number, string | null]>(SQL.insertEvent)
  const nextSeq = db.prepare<[number, number, number], number>(SQL.nextSeq).pluck()
  const upsertSummary = db.prepare<[string, number, string]>(SQL.upsertSummary)
  const selectEventRange = db.prepare<[number, number, number, number, number], StoredRow>(SQL.selectEventRange)
  const selectSummary = db.prepare<[string], Omit<ListRow, 'id' | 'header' | 'length'> & { length: number | null }>(SQL.selectSummary)
  // `length` is null for a session with no row in `events` (none yet, or only layout 1 rows).
  const listSessions = db.prepare<[], Omit<ListRow, 'length'> & { length: number | null }>(SQL.listSessions)
  // A database migrated from layout 1 keeps those rows in events_v1, read before the newer ones.
  const migrated = hasTable(db, 'events_v1')
  const legacy = migrated
    ? {
        selectEvents: db.prepare<[string], StoredRow>(SQL.legacy.selectEvents),
        selectRange: db.prepare<[string, number, number], StoredRow>(SQL.legacy.selectRange),
        nextSeq: db.prepare<[string], number | null>(SQL.legacy.nextSeq).pluck(),
        listLengths: db.prepare<[], { id: string; length: number }>(SQL.legacy.listLengths),
      }
    : undefined
  const stats: ConnectionStats = { commits: 0, rollbacks: 0, events: 0 }
  const removal = prepareRemoval(db, migrated)
  /**
   * One past the last stored event of the session. With no row at its key, the key is checked:
   * the session may have been removed (by another store: this one's writers refuse it) since the
   * writer opened it — rows written at its key would belong to no session, and the writer would go
   * on as if nothing had happened (while a new session of the id, if any, has another key).
   */
  const next = (ref: SessionRef): number => {
    const found = nextSeq.get(ref.key, ref.key, ref.key)
    if (found !== undefined) return found
    if (sessionKey.get(ref.id) !== ref.key) {
      throw new BosunError(
        ErrorCodes.STALE_WRITER,
        `SQLite store ${file}: session "${ref.id}" was removed (by another store or process on this file) after this writer opened it; nothing more is written to it. Create or open the session again to go on.`,
        { details: { file, session: ref.id, removed: true } },
      )
    }
    return legacy?.nextSeq.get(ref.id) ?? 0
  }
  const insertRows = (ref: SessionRef, rows: readonly EventRow[]) => {
    if (rows.length === 0) return
    const last = rows[rows.length - 1]!.seq
    if (last >= MAX_EVENTS_PER_SESSION) {
      throw new BosunError(ErrorCodes.STORE, `SQLite store ${file}: session "${ref.id}" cannot hold more than ${MAX_EVENTS_PER_SESSION} events.`, {
        details: { file, session: ref.id, seq: last },
      })
    }
    packRows(rows, PACKED_TYPE, MAX_EVENTS_PER_ROW, (seq, time, type, data, extra, count, times) => {
      insertEvent.run(ref.key, seq, time, type, data, extra, count, times)
    })
  }
  const writeSummary = (session: string, summary: StoredSummary | undefined) => {
    if (summary !== undefined) upsertSummary.run(session, summary.length, summary.summary)
  }
  const create = db.transaction((header: SessionHeader, seed: readonly EventRow[], summary: StoredSummary | undefined) => {
    if (selectSession.get(header.id) !== undefined) {
      throw new BosunError(ErrorCodes.SESSION_EXISTS, `SQLite store ${file}: session "${header.id}" already exists.`, {
        details: { file, session: header.id },
      })
    }
    // Layout 1 rows belong to a session by its id, not its key: rows left in events_v1 by a session
    // deleted by hand would be read as the new session's log (and its writer refused at seq 0).
    if ((legacy?.nextSeq.get(header.id) ?? null) !== null) {
      throw new BosunError(
        ErrorCodes.STORE,
        `SQLite store ${file}: session "${header.id}" cannot be created: events_v1 (layout 1) still holds the events of a session "${header.id}" whose row was deleted, and the new session would read them as its own log. Delete them first (DELETE FROM events_v1 WHERE session_id = '${header.id}'), or choose another id.`,
        { details: { file, session: header.id } },
      )
    }
    const key = Number(insertSession.run(header.id, JSON.stringify(header), header.createdAt, header.parent ?? null).lastInsertRowid)
    insertRows({ id: header.id, key }, seed)
    writeSummary(header.id, summary)
    return key
  })
  const append = db.transaction((session: string, key: number, batch: readonly EventRow[], summary: StoredSummary | undefined) => {
    const ref = { id: session, key }
    const stored = next(ref)
    const first = batch[0]!.seq
    if (first !== stored) {
      throw new BosunError(
        ErrorCodes.STALE_WRITER,
        `SQLite store ${file}: session "${session}" has ${stored} stored events, but this writer's next batch starts at seq ${first}: another writer appended to the session since this one opened it. Reopen the session.`,
        { details: { file, session, stored, seq: first } },
      )
    }
    insertRows(ref, batch)
    writeSummary(session, summary)
  })
  // Called inside `group`, `append` runs as a nested better-sqlite3 transaction, i.e. inside a
  // SAVEPOINT: on error it rolls back to that savepoint (only this batch's rows) and rethrows.
  const group = db.transaction((batches: ReadonlyArray<{ session: string; key: number; rows: readonly EventRow[]; summary: StoredSummary | undefined }>): Outcome[] => {
    const outcomes: Outcome[] = []
    for (const { session, key, rows, summary } of batches) {
      try {
        append(session, key, rows, summary)
        outcomes.push({ ok: true })
      } catch (error) {
        // Some errors (SQLITE_FULL, IOERR, NOMEM, BUSY…) make SQLite roll back the whole
        // transaction: then nothing of the round survives, and every batch fails with this error.
        if (!db.inTransaction) throw error
        outcomes.push({ ok: false, error })
      }
    }
    return outcomes
  })
  const queue = new Set<CommitMember>()
  let round: ReturnType<typeof setImmediate> | undefined

  /** One commit round: every queued member's rows in one transaction, one savepoint each. */
  const runRound = () => {
    round = undefined
    const members = [...queue]
    queue.clear()
    const batches = members.map((member) => ({ member, session: member.session, key: member.key, rows: member.pendingRows() }))
    const writing = batches
      .filter((batch) => batch.rows.length > 0)
      .map((batch) => ({ ...batch, summary: batch.member.summaryAfter?.(batch.rows.length) }))
    let outcomes: Outcome[]
    if (writing.length === 0) {
      outcomes = []
    } else {
      try {
        // IMMEDIATE: take the write lock first, so a concurrent writer waits (busy_timeout) instead of failing.
        outcomes = group.immediate(writing)
        stats.commits++
      } catch (error) {
        // BEGIN, COMMIT or a whole-transaction rollback failed: nothing of the round was written.
        outcomes = writing.map(() => ({ ok: false, error }))
      }
    }
    const byMember = new Map(writing.map((batch, index) => [batch.member, outcomes[index]!]))
    for (const { member, rows } of batches) {
      const outcome = byMember.get(member) ?? { ok: true }
      if (outcome.ok) stats.events += rows.length
      else stats.rollbacks++
      try {
        member.settle(rows.length, outcome.ok ? undefined : outcome.error)
      } catch {
        // A member's bookkeeping cannot stop the others from being settled.
      }
    }
  }

  const load = db.transaction((id: string) => {
    const found = selectSession.get(id)
    if (found === undefined) return undefined
    const rows = selectEvents.all(found.key, found.key, found.key)
    return { header: found.header, key: found.key, rows: legacy ? [...legacy.selectEvents.all(id), ...rows] : rows }
  })
  /** The rows holding seqs `from` … `to - 1` of the session `ref` (inside a transaction). */
  const rowsOf = (ref: SessionRef, from: number, to: number): StoredRow[] => {
    // A migrated database's layout 1 rows of the range (all below the newer rows' seqs), then the newer ones: two key ranges.
    const old = legacy ? legacy.selectRange.all(ref.id, from, to) : []
    const rows = selectEventRange.all(ref.key, ref.key, Math.max(0, from - MAX_EVENTS_PER_ROW + 1), ref.key, to)
    return [...old, ...rows.filter((row) => row.seq + row.count > from)]
  }
  const range = db.transaction((id: string, from: number, to: number): StoredRow[] | undefined => {
    const found = selectSession.get(id)
    return found === undefined ? undefined : rowsOf({ id, key: found.key }, from, to)
  })
  /** The rows after `row`'s summary, when `tailFrom` asks for them. */
  const tailOf = (id: string, row: Pick<ListRow, 'summary' | 'summaryLength' | 'length'>, tailFrom: TailFrom | undefined): { tail?: StoredRow[] } => {
    const from = tailFrom?.(row.summary, row.summaryLength, row.length)
    // The key as this transaction reads it: the session may have been removed and made again since any other read.
    return from === undefined ? {} : { tail: rowsOf({ id, key: sessionKey.get(id)! }, from, row.length) }
  }
  const summaryRow = db.transaction((id: string, tailFrom: TailFrom | undefined) => {
    const found = selectSummary.get(id)
    if (found === undefined) return undefined
    const row = { ...found, length: found.length ?? legacy?.nextSeq.get(id) ?? 0 }
    return { ...row, ...tailOf(id, row, tailFrom) }
  })
  const list = db.transaction((tailFrom: TailFrom | undefined) => {
    const old = legacy ? new Map(legacy.listLengths.all().map((row) => [row.id, row.length])) : undefined
    return listSessions.all().map((s) => {
      const row = { ...s, length: s.length ?? old?.get(s.id) ?? 0 }
      return { ...row, ...tailOf(s.id, row, tailFrom) }
    })
  })

  return {
    file,
    db,
    stats,
    createSession(header, seed, summary) {
      // IMMEDIATE: take the write lock first, so a concurrent writer waits (busy_timeout) instead of failing.
      return create.immediate(header, seed, summary)
    },
    requestCommit(member) {
      if (!db.open) throw new BosunError(ErrorCodes.STORE, `SQLite store ${file} is closed.`, { details: { file, session: member.session } })
      queue.add(member)
      round ??= setImmediate(runRound)
    },
    loadSession: (id) => load.deferred(id),
    readRange: (id, from, to) => range.deferred(id, from, to),
    readSummary: (id, tailFrom) => summaryRow.deferred(id, tailFrom),
    removeSession: (id) => removal(id) !== undefined,
    hasSession: (id) => sessionKey.get(id) !== undefined,
    readHeader: (id) => selectSession.get(id)?.header,
    listSessions: (tailFrom) => list.deferred(tailFrom),
    close() {
      if (round !== undefined) {
        // Settles every queued writer now (committed, or rejected if the database is already closed).
        clearImmediate(round)
        runRound()
      }
      if (db.open) db.close()
    },
  }
}
