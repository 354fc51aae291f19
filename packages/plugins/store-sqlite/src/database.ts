import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { BosunError, ErrorCodes } from '@bosun/core'
import type { SessionHeader } from '@bosun/core'
import type { EventRow } from './codec.js'
import { storeError } from './errors.js'
import { BUSY_TIMEOUT_MS, CREATE_TABLES, SCHEMA_VERSION, SQL } from './schema.js'

/** @internal Counters for tests and diagnostics; not part of the public API. */
export interface ConnectionStats {
  /** Write-behind batches committed (one transaction each). */
  commits: number
  /** Write-behind batches rolled back. */
  rollbacks: number
  /** Events written by committed batches. */
  events: number
}

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
  /** Appends a batch in one transaction; STALE_WRITER unless it starts right after the stored log. */
  appendBatch(session: string, batch: readonly EventRow[]): void
  /** Reads a session's header and rows in one read transaction (a consistent snapshot). */
  loadSession(id: string): { header: string; rows: EventRow[] } | undefined
  listSessions(): ListRow[]
  close(): void
}

/**
 * Opens (creating if needed) the database at `file`: refuses a newer layout before touching
 * anything, then sets WAL and `synchronous=FULL`, creates the tables, and prepares the statements.
 */
export function openDatabase(file: string): Connection {
  try {
    mkdirSync(dirname(file), { recursive: true })
  } catch (error) {
    throw storeError(file, 'create the folder of the database', error)
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
    appendBatch(session, batch) {
      if (batch.length === 0) return
      try {
        append.immediate(session, batch)
      } catch (error) {
        stats.rollbacks++
        throw error
      }
      stats.commits++
      stats.events += batch.length
    },
    loadSession: (id) => load.deferred(id),
    listSessions: () => listSessions.all(),
    close() {
      if (db.open) db.close()
    },
  }
}
