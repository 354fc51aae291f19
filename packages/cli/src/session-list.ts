import { BosunError, summarizeLog, type Delegation, type LogSummary, type SessionHeader, type SessionSummary } from '@bosun/core'
import type { SessionInfo } from './session-info.js'
import type { SessionReader } from './session-reader.js'
import { messageOf } from './errors.js'

/**
 * One row of `bosun sessions list`: what `sessions show` tells without the turns, `pending` as a
 * count, and a subagent's child's `delegation` (its header's, as the list entry gives it). `--json` prints its keys in the
 * order {@link row} makes them.
 */
export type ListedSession = Omit<SessionInfo, 'turnList' | 'pending'> & {
  delegation?: Delegation
  pending: number
  /** `delegation.parentSessionId`, for the tree (not printed). */
  parentSessionId?: string
}

/**
 * Every session the reader lists, in the store's order. A session whose summary the store keeps
 * (all of `length`, `lastActivity`, `turns`, `firstPrompt` and `pending`: SQLite, PostgreSQL,
 * JSONL) costs nothing more — its header only for a fork, or where the entry lacks `delegation`
 * (see {@link headerOf}); any other is read whole and summarised here with the same fold
 * (`summarizeLog`, which the store's summary must equal), so a session gives the same row either
 * way, and listing a store that keeps no summaries costs a read of every log. A session that
 * cannot be read is passed to `skipped` and left out: one damaged session must not hide the others.
 */
export async function listSessions(reader: SessionReader, skipped: (id: string, error: unknown) => void): Promise<ListedSession[]> {
  const listed: ListedSession[] = []
  for (const summary of await reader.list()) {
    try {
      const row = (await fromSummary(reader, summary)) ?? (await fromLog(reader, summary.id))
      if (row) listed.push(row)
    } catch (error) {
      skipped(summary.id, error)
    }
  }
  return listed
}

/** The row from the store's summary (and the header where it must), or `undefined` when the store keeps no whole summary. */
async function fromSummary(reader: SessionReader, summary: SessionSummary): Promise<ListedSession | undefined> {
  const { length, lastActivity, turns, firstPrompt, pending } = summary
  if (length === undefined || lastActivity === undefined || turns === undefined || firstPrompt === undefined || pending === undefined) return undefined
  const header = await headerOf(reader, summary)
  if (header === undefined) return undefined
  return row(header, { length, lastActivity, turns, firstPrompt, pending })
}

/** What a row shows of the session's header. */
type RowHeader = Pick<SessionHeader, 'id' | 'createdAt' | 'parent' | 'seedLength' | 'delegation'>

/**
 * The header fields of a row from the list entry, which has the id, creation time, `parent` and
 * `delegation` (`null`: none) — so listing reads no header — except where it cannot: a store
 * whose entry does not give `delegation`, and a fork, whose `seedLength` only its header has
 * (a session that is no fork has none: 0).
 */
async function headerOf(reader: SessionReader, summary: SessionSummary): Promise<RowHeader | undefined> {
  const { id, createdAt, parent, delegation } = summary
  if (delegation === undefined || parent !== undefined) return reader.header(id)
  return { id, createdAt, ...(delegation === null ? {} : { delegation }) }
}

/**
 * The row from the whole log, summarised as a store summarises it — not by replaying the inbox
 * (`sessions show` does, and refuses a log whose splices do not replay): a summary is never
 * checked that way, and the row must not depend on whether the store keeps one.
 */
async function fromLog(reader: SessionReader, id: string): Promise<ListedSession | undefined> {
  const log = await reader.read(id)
  if (log === undefined) return undefined
  return row(log.header, summarizeLog(log.header, log.events))
}

function row(header: RowHeader, summary: Omit<LogSummary, 'queued'>): ListedSession {
  const { delegation } = header
  return {
    id: header.id, createdAt: header.createdAt, parent: header.parent, seedLength: header.seedLength ?? 0,
    events: summary.length, turns: summary.turns, lastActivity: summary.lastActivity, firstPrompt: summary.firstPrompt ?? undefined,
    ...(delegation ? { delegation } : {}), pending: summary.pending, ...(delegation ? { parentSessionId: delegation.parentSessionId } : {}),
  }
}

/** `CODE: message` of a skipped session's error. */
export function skipReason(error: unknown): string {
  const code = BosunError.is(error) ? error.code : 'UNEXPECTED'
  return `${code}: ${messageOf(error)}`
}
