import { LogSummaryFold, summaryFields } from '@bosun/core'
import type { SessionEvent, SessionSummary } from '@bosun/core'
import { decodeRow, type StoredRow } from './codec.js'
import type { StoredSummary } from './database.js'

/**
 * The `session_summaries` row of a session and when a batch writes it.
 *
 * The row used to be rewritten with every batch. Each write is one more page of the WAL per
 * commit (1,048 bytes at layout 2's 1 KiB pages): 4 of the 13 frames a turn of the benchmark
 * conversation wrote (docs/benchmarks.md, "SQLite: WAL bytes per turn"). A turn changes what a list
 * shows (turns, queues, first prompt) in its first batch, and its later batches only add events. So
 * a batch writes the row only when no turn is open once it is in — the batch that ends a turn, or
 * one written between turns (a message queued while idle) — or when the row would otherwise lag the
 * log by {@link SUMMARY_LAG_MAX} events or more (a long turn). A reader whose row is behind the log
 * folds the rows after it on from the fold state the row keeps ({@link summaryAfterTail}): at most
 * one turn's tail, in the same read transaction, so the list stays exact.
 *
 * The row's JSON is a {@link LogSummary} (what older builds read, which use it only while its length
 * is the log's) plus `state`, the fold's own state ({@link LogSummaryFold.state}), which only this
 * build and later ones fold on from.
 */

/** A batch writes the summary row when the row would otherwise be this many events or more behind the log. */
export const SUMMARY_LAG_MAX = 1024

/** The row for a fold: its summary and what else its state holds, at its length. */
export function storedSummary(fold: LogSummaryFold): StoredSummary {
  // The summary already holds the length, the last activity, the turn and the first prompt's text:
  // the state adds the seed length, the queues as the fold counts them, and which text the prompt is.
  const { length: _, lastActivity: __, turns: ___, firstPrompt, firstQueued, ...rest } = fold.state()
  const prompt = firstPrompt !== undefined ? 'user' : firstQueued !== undefined ? 'queued' : undefined
  return { length: fold.length, summary: JSON.stringify({ ...fold.summary(), state: { ...rest, ...(prompt ? { prompt } : {}) } }) }
}

/** The fold state a row written by {@link storedSummary} keeps; `undefined` for any other row. */
function stateOf(summary: string): unknown {
  let row: { length?: unknown; lastActivity?: unknown; turns?: unknown; firstPrompt?: unknown; state?: { prompt?: unknown } } | null
  try {
    row = JSON.parse(summary)
  } catch {
    return undefined
  }
  if (typeof row?.state !== 'object' || row.state === null) return undefined
  const { prompt, ...rest } = row.state
  const text = typeof row.firstPrompt === 'string' ? row.firstPrompt : undefined
  return {
    ...rest, length: row.length, lastActivity: row.lastActivity, turns: row.turns,
    ...(prompt === 'user' ? { firstPrompt: text } : prompt === 'queued' ? { firstQueued: text } : {}),
  }
}

/**
 * Where a reader must fold on from to make the row `summary` (of `summaryLength` events) current
 * for a log of `length` events: `summaryLength`, for a row behind the log that keeps its fold state;
 * `undefined` otherwise: current, an older build's row (no state to fold on from), or one
 * {@link SUMMARY_LAG_MAX} events or more behind (rows another build appended: reading them could
 * mean reading the whole log) — not used then.
 */
export function tailFrom(summary: string | null, summaryLength: number | null, length: number): number | undefined {
  // Further behind than this build lets a row lag: another build wrote the rows after it.
  if (summary === null || summaryLength === null || summaryLength >= length || length - summaryLength >= SUMMARY_LAG_MAX) return undefined
  return summary.includes('"state"') ? summaryLength : undefined
}

/**
 * The list fields of a session whose row is `summary` (of `summaryLength` events) and whose log has
 * `length` events: the row's own when it is of the log's length; else, for a row that keeps its fold
 * state, that state folded on through `tail` (the rows from `summaryLength`, read with the length);
 * else none (the reader reads the log).
 */
export function listFields(
  summary: string | null, summaryLength: number | null, length: number, tail: readonly StoredRow[] | undefined, file: string, id: string,
): Pick<SessionSummary, 'lastActivity' | 'turns' | 'firstPrompt' | 'pending' | 'queued'> {
  if (summary === null || summaryLength === null) return {}
  if (summaryLength === length) return summaryFields(summary, length)
  const fold = tail === undefined ? undefined : summaryAfterTail(summary, summaryLength, tail, file, id)
  return fold === undefined || fold.length !== length ? {} : summaryFields(JSON.stringify(fold.summary()), length)
}

/** The row's fold state folded on through `tail` (rows from seq `from`; the first may start before it). */
function summaryAfterTail(summary: string, from: number, tail: readonly StoredRow[], file: string, id: string): LogSummaryFold | undefined {
  const fold = LogSummaryFold.fromState(stateOf(summary))
  if (fold === undefined || fold.length !== from || tail.length === 0) return undefined
  const first = Math.min(from, tail[0]!.seq)
  const events: SessionEvent[] = []
  try {
    for (const row of tail) decodeRow(row, events, file, id, first)
  } catch {
    // A damaged row: the list leaves the fields out, and opening the session reports it.
    return undefined
  }
  for (let i = from - first; i < events.length; i++) fold.add(events[i]!)
  return fold
}

/**
 * Whether a turn is open once `events` are in, after a log where one was (`open`): a `turn/start`
 * opens one, a `turn/end` closes it.
 */
export function turnOpenAfter(open: boolean, events: readonly SessionEvent[], count: number): boolean {
  let result = open
  for (let i = 0; i < count; i++) {
    const type = events[i]!.type
    if (type === 'turn/start') result = true
    else if (type === 'turn/end') result = false
  }
  return result
}
