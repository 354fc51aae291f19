import type Database from 'better-sqlite3'
import { LogSummaryFold, summaryFields } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { decodeHeader, decodeRow, type StoredRow } from './codec.js'
import { CREATE_SUMMARIES, SQL } from './schema.js'
import { storedSummary } from './summary-row.js'

interface SessionRow {
  id: string
  key: number
  header: string
}

/** What a test may watch: called before each session's log is folded (no lock of this connection's held). */
export interface SummaryHooks {
  beforeFold?(id: string): void
}

/**
 * Writes the list summary (`session_summaries`) of every session of a database just migrated that
 * has no current one: a session of layout 1 never had one (nor one written by a build before the
 * table, or before `queued`), and without it the host reads the session's whole log for every list
 * until the session's next batch rewrites it. Run after the migration has committed, not in its
 * transaction: reading every log takes seconds on a large database (7.3 s for 10 sessions of
 * 100,000 events, against 1.1 s for the migration), and the migration holds the write lock, so
 * another process's open or write waiting on it (busy_timeout, 5 s) failed with STORE. Here each
 * log is folded in a read transaction (WAL: writers go on), a row at a time, and its summary
 * written in a short write transaction of its own, only if the log is still of the folded length
 * (another process's batch meanwhile wrote its own). A summary is a cache the store reads past:
 * one not written — the log cannot be read (opening it reports CORRUPT_LOG), the write fails, the
 * process stops halfway — leaves that session listed with its length until its next batch.
 */
export function writeMissingSummaries(db: Database.Database, file: string, legacy: boolean, hooks: SummaryHooks = {}): void {
  db.exec(CREATE_SUMMARIES)
  const sessions = db.prepare<[], SessionRow>('SELECT s.id AS id, s.key AS key, s.header AS header FROM sessions s').all()
  const nextSeq = db.prepare<[number, number, number], number>(SQL.nextSeq).pluck()
  const legacyNext = legacy ? db.prepare<[string], number | null>(SQL.legacy.nextSeq).pluck() : undefined
  const stored = db.prepare<[string], { length: number; summary: string }>('SELECT length, summary FROM session_summaries WHERE id = ?')
  const rows = db.prepare<[number, number, number], StoredRow>(SQL.selectEvents)
  const legacyRows = legacy ? db.prepare<[string], StoredRow>(SQL.legacy.selectEvents) : undefined
  const upsert = db.prepare<[string, number, string]>(SQL.upsertSummary)
  const lengthOf = (session: SessionRow) => nextSeq.get(session.key, session.key, session.key) ?? legacyNext?.get(session.id) ?? 0
  // Current: of this length, with every field (an older build's lacks `queued`, which the host then reads the log for).
  const current = (session: SessionRow, length: number) => {
    const row = stored.get(session.id)
    return row !== undefined && row.length === length && 'queued' in summaryFields(row.summary, length)
  }
  // A read transaction: one snapshot of the session's rows, no write lock.
  const fold = db.transaction((session: SessionRow) => {
    if (current(session, lengthOf(session))) return undefined
    const parts = [...(legacyRows ? [() => legacyRows.iterate(session.id)] : []), () => rows.iterate(session.key, session.key, session.key)]
    return foldLog(session, file, parts)
  })
  const write = db.transaction((session: SessionRow, folded: LogSummaryFold) => {
    if (lengthOf(session) === folded.length && !current(session, folded.length)) upsert.run(session.id, folded.length, storedSummary(folded).summary)
  })
  for (const session of sessions) {
    hooks.beforeFold?.(session.id)
    const folded = fold(session)
    if (folded === undefined) continue
    try {
      write.immediate(session, folded)
    } catch {
      // Left out: the session is listed with its length, and its next batch writes its summary.
    }
  }
}

/** The summary fold of a session's log (its layout 1 rows, then the newer ones), or `undefined` when it cannot be read. */
function foldLog(session: SessionRow, file: string, parts: (() => Iterable<StoredRow>)[]): LogSummaryFold | undefined {
  try {
    const fold = new LogSummaryFold(decodeHeader(session.header, file, session.id))
    // One row's events at a time (a packed row holds up to 256), checked for gaps as open() checks them.
    const events: SessionEvent[] = []
    // Each part's statement is started when it is read, and ended by the loop (also when a row throws).
    for (const part of parts) {
      for (const row of part()) {
        decodeRow(row, events, file, session.id, fold.length)
        for (const event of events) fold.add(event)
        events.length = 0
      }
    }
    return fold
  } catch {
    return undefined
  }
}
