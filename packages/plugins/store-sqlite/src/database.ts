import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { BosunError, ErrorCodes } from '@bosun/core'
import type { SessionHeader } from '@bosun/core'
import type { EventRow } from './codec.js'
import { storeError } from './errors.js'
import { checkDatabaseFiles } from './file-safety.js'
import { BUSY_TIMEOUT_MS, CREATE_TABLES, SCHEMA_VERSION, SQL } from './schema.js'

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
  /** Every row queued now, in order; empty when there is nothing to write. */
  pendingRows(): readonly EventRow[]
  /** `error` undefined: the `rows` first rows were committed. Otherwise they were rolled back. */
  settle(rows: number, error: unknown): void
}

type Outcome = { ok: true } | { ok: false; error: unknown }

interface ListRow {
  id: string
  createdAt: number
  parent: string | null
  length: number
}

/** One open database: the connection, its statements (prepared once) and its transactions. */
export interface Connection {
  readonly file: string
  readonly db: Database.Database
  readonly stats: ConnectionStats
  /** Inserts a session and its seed in one transaction; SESSION_EXISTS if the id is taken. */
  createSession(header: SessionHeader, seed: readonly EventRow[]): void
  /**
   * Queues `member` for the next commit round (group commit). One macrotask later (`setImmediate`,
   * so that concurrent flushes of other sessions join), ONE `BEGIN IMMEDIATE` transaction writes
   * every queued member's rows, each batch inside its own SAVEPOINT (STALE_WRITER unless it
   * starts right after the stored log; a refused batch rolls back alone), then ONE `COMMIT`, and
   * each member is settled. A member already queued is not queued twice. Throws (STORE) when the
   * connection is closed.
   */
  requestCommit(member: CommitMember): void
  /** Reads a session's header and rows in one read transaction (a consistent snapshot). */
  loadSession(id: string): { header: string; rows: EventRow[] } | undefined
  listSessions(): ListRow[]
  /** Runs a pending commit round at once, then closes the database. */
  close(): void
}

/**
 * Opens (creating if needed) the database at `file`: refuses a path that is not a regular file
 * (UNSAFE_STORE_FILE, see file-safety.ts) and a newer layout before touching anything, then sets
 * WAL and `synchronous=FULL`, creates the tables, and prepares the statements.
 */
export function openDatabase(file: string): Connection {
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
  let db: Database.Database
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS })
  } catch (error) {
    throw storeError(file, 'open the database', error)
  }
  try {
    refuseNewerLayout(db, file)
    const mode = db.pragma('journal_mode = WAL', { simple: true })
    if (mode !== 'wal') {
      throw new BosunError(
        ErrorCodes.STORE,
        `SQLite store ${file}: the database cannot use write-ahead logging (journal_mode is "${String(mode)}"). Use a file on a local disk.`,
        { details: { file, journalMode: String(mode) } },
      )
    }
    db.pragma('synchronous = FULL')
    if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
      db.transaction(() => {
        // Re-read under the write lock: another process may have created the tables meanwhile.
        const version = refuseNewerLayout(db, file)
        if (version >= SCHEMA_VERSION) return
        db.exec(CREATE_TABLES)
        db.pragma(`user_version = ${SCHEMA_VERSION}`)
      }).immediate()
    }
    return connect(db, file)
  } catch (error) {
    db.close()
    throw storeError(file, 'prepare the database', error)
  }
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

function connect(db: Database.Database, file: string): Connection {
  const selectSession = db.prepare<[string], { header: string }>(SQL.selectSession)
  const insertSession = db.prepare<[string, string, number, string | null]>(SQL.insertSession)
  const selectEvents = db.prepare<[string], EventRow>(SQL.selectEvents)
  const insertEvent = db.prepare<[string, number, number, string, string, string | null]>(SQL.insertEvent)
  const nextSeq = db.prepare<[string], { next: number }>(SQL.nextSeq)
  const listSessions = db.prepare<[], ListRow>(SQL.listSessions)
  const stats: ConnectionStats = { commits: 0, rollbacks: 0, events: 0 }

  const insertRows = (session: string, rows: readonly EventRow[]) => {
    for (const row of rows) insertEvent.run(session, row.seq, row.time, row.type, row.data, row.extra)
  }
  const create = db.transaction((header: SessionHeader, seed: readonly EventRow[]) => {
    if (selectSession.get(header.id) !== undefined) {
      throw new BosunError(ErrorCodes.SESSION_EXISTS, `SQLite store ${file}: session "${header.id}" already exists.`, {
        details: { file, session: header.id },
      })
    }
    insertSession.run(header.id, JSON.stringify(header), header.createdAt, header.parent ?? null)
    insertRows(header.id, seed)
  })
  const append = db.transaction((session: string, batch: readonly EventRow[]) => {
    const next = nextSeq.get(session)?.next ?? 0
    const first = batch[0]!.seq
    if (first !== next) {
      throw new BosunError(
        ErrorCodes.STALE_WRITER,
        `SQLite store ${file}: session "${session}" has ${next} stored events, but this writer's next batch starts at seq ${first}: another writer appended to the session since this one opened it. Reopen the session.`,
        { details: { file, session, stored: next, seq: first } },
      )
    }
    insertRows(session, batch)
  })
  // Called inside `group`, `append` runs as a nested better-sqlite3 transaction, i.e. inside a
  // SAVEPOINT: on error it rolls back to that savepoint (only this batch's rows) and rethrows.
  const group = db.transaction((batches: ReadonlyArray<{ session: string; rows: readonly EventRow[] }>): Outcome[] => {
    const outcomes: Outcome[] = []
    for (const { session, rows } of batches) {
      try {
        append(session, rows)
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
    const batches = members.map((member) => ({ member, session: member.session, rows: member.pendingRows() }))
    const writing = batches.filter((batch) => batch.rows.length > 0)
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
    return { header: found.header, rows: selectEvents.all(id) }
  })

  return {
    file,
    db,
    stats,
    createSession(header, seed) {
      // IMMEDIATE: take the write lock first, so a concurrent writer waits (busy_timeout) instead of failing.
      create.immediate(header, seed)
    },
    requestCommit(member) {
      if (!db.open) throw new BosunError(ErrorCodes.STORE, `SQLite store ${file} is closed.`, { details: { file, session: member.session } })
      queue.add(member)
      round ??= setImmediate(runRound)
    },
    loadSession: (id) => load.deferred(id),
    listSessions: () => listSessions.all(),
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
