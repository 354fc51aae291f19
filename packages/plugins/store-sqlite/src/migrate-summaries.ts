import type Database from 'better-sqlite3'
import { LogSummaryFold, summaryFields } from '@bosun/core'
import type { SessionEvent } from '@bosun/core'
import { decodeHeader, decodeRow, type StoredRow } from './codec.js'
import { CREATE_SUMMARIES, SQL } from './schema.js'

interface SessionRow {
  id: string
  key: number
  header: string
  summaryLength: number | null
  summary: string | null
}

/**
 * Writes the list summary (`session_summaries`) of every session of a database being migrated that
 * has no current one, inside the migration's transaction: a session of layout 1 never had one
 * (nor one written by a build before the table, or before `queued`), and without it the host reads
 * the session's whole log for every list until the session's next batch rewrites it. Each log is
 * read once, here, a row at a time. A session whose header or rows cannot be read gets none (its
 * list entry has its length alone; opening it reports CORRUPT_LOG), and does not stop the migration.
 */
export function writeMissingSummaries(db: Database.Database, file: string, legacy: boolean): void {
  db.exec(CREATE_SUMMARIES)
  const sessions = db
    .prepare<[], SessionRow>('SELECT s.id AS id, s.key AS key, s.header AS header, m.length AS summaryLength, m.summary AS summary FROM sessions s LEFT JOIN session_summaries m ON m.id = s.id')
    .all()
  const nextSeq = db.prepare<[number, number, number], number>(SQL.nextSeq).pluck()
  const legacyNext = legacy ? db.prepare<[string], number | null>(SQL.legacy.nextSeq).pluck() : undefined
  const rows = db.prepare<[number, number, number], StoredRow>(SQL.selectEvents)
  const legacyRows = legacy ? db.prepare<[string], StoredRow>(SQL.legacy.selectEvents) : undefined
  const upsert = db.prepare<[string, number, string]>(SQL.upsertSummary)
  for (const session of sessions) {
    const length = nextSeq.get(session.key, session.key, session.key) ?? legacyNext?.get(session.id) ?? 0
    // Current: of this length, with every field (an older build's lacks `queued`, which the host then reads the log for).
    if (session.summary !== null && session.summaryLength === length && 'queued' in summaryFields(session.summary, length)) continue
    const parts = [...(legacyRows ? [() => legacyRows.iterate(session.id)] : []), () => rows.iterate(session.key, session.key, session.key)]
    const fold = foldLog(session, file, parts)
    if (fold !== undefined) upsert.run(session.id, fold.length, JSON.stringify(fold.summary()))
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
