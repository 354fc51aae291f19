import { findLiveAgent, LogSummaryFold, summarizeLog, type Session, type SessionEvent, type SessionHeader, type SessionSummary as StoreListItem, type Store } from '@bosun/core'
import type { SessionSummaryFrame } from './feed.js'
import { foldInbox } from './log.js'
import type { SessionManager } from './sessions.js'

type Delegation = NonNullable<SessionHeader['delegation']>

export interface SessionSummary extends SessionSummaryFrame {
  /** A subagent's child: the session that spawned it (`delegation.parentSessionId` of its header). */
  parentSessionId?: string
}

export interface ChildSummary extends SessionSummary {
  parentSessionId: string
  /** The child's delegation: the spawning tool call, its depth and mode. */
  delegation: Delegation
}

/**
 * The header fields a list shows: when it was made, whose fork it is, whose subagent — from the
 * header when there is one, else from the store's list entry (a store without `read`).
 */
function fromHeader(header: SessionHeader | undefined, listed: Partial<StoreListItem>): Pick<SessionSummary, 'createdAt' | 'parent' | 'parentSessionId'> & { delegation?: Delegation } {
  const at = listed.createdAt ?? header?.createdAt
  const parent = header?.parent ?? listed.parent
  const delegation = header?.delegation
  return {
    ...(at === undefined ? {} : { createdAt: at }),
    ...(parent === undefined ? {} : { parent }),
    ...(delegation ? { parentSessionId: delegation.parentSessionId, delegation } : {}),
  }
}

/** The time of the log's last event (a live agent's or the stored log's), null for an empty log. */
function lastEventAt(events: readonly SessionEvent[]): number | null {
  return events[events.length - 1]?.time ?? null
}

/**
 * A live session's first prompt: the store's summary fold run over its log from the start until
 * the prompt is final (the first message a user sent was delivered: a turn's first events), then
 * never again — or, while it is not, on over the events appended since. So a session's frames never
 * read its log twice, and a sealed log has only its first page decoded for it. The list entry's
 * when that entry is of exactly this log (an idle session whose batches are written): the same
 * answer, read from no page. Not otherwise: a live session's store lags its log (write-behind),
 * and its first prompt may still change (a first queued message canceled).
 */
const liveFolds = new WeakMap<Session, LogSummaryFold>()
function livePrompt(session: Session, listed: Partial<StoreListItem>): string | null {
  if (listed.length === session.length && listed.firstPrompt !== undefined) return listed.firstPrompt
  let fold = liveFolds.get(session)
  if (fold === undefined) liveFolds.set(session, (fold = new LogSummaryFold(session.header)))
  for (let seq = fold.length; !fold.firstPromptFinal && seq < session.length; seq++) fold.add(session.eventAt(seq)!)
  return fold.summary().firstPrompt
}

/**
 * A stored session's row from its store list entry alone, when the entry has every field the row
 * needs (a store's current summary and header: SQLite, PostgreSQL, JSONL, memory); `undefined`
 * otherwise (a summary written by an earlier build without the per-queue counts, a store that
 * keeps none), and the caller reads the log. The same row as {@link sessionSummary}'s full read:
 * the store's summary is the fold of the whole log (the store contract checks it).
 */
function fromListed(id: string, listed: Partial<StoreListItem>): (SessionSummary & { delegation?: Delegation }) | undefined {
  const { createdAt, parent, length, lastActivity, queued, delegation, firstPrompt } = listed
  if (createdAt === undefined || length === undefined || lastActivity === undefined || queued === undefined || delegation === undefined || firstPrompt === undefined) return undefined
  return {
    id, createdAt, ...(parent === undefined ? {} : { parent }),
    ...(delegation === null ? {} : { parentSessionId: delegation.parentSessionId, delegation }),
    loaded: false, status: 'idle', lastSeq: length - 1,
    // An empty log's summary gives its creation time; the row says there is no event yet.
    lastEventAt: length === 0 ? null : lastActivity,
    queue: { 'next-turn': queued['next-turn'], 'next-step': queued['next-step'] },
    firstPrompt,
  }
}

/** One session's list entry from `Store.summary` and `Store.header` (delegation), or undefined when either has none or fails (the log is read instead). */
async function oneListed(store: Store, id: string): Promise<Partial<StoreListItem> | undefined> {
  const [summary, header] = await Promise.all([store.summary!(id).catch(() => undefined), store.header!(id).catch(() => undefined)])
  return summary && header ? { ...summary, delegation: header.delegation ?? null } : undefined
}

/**
 * A session's summary for lists, the host stream and children: a session live in this process
 * from its agent, a stored one from its store list entry `listed` when that has every field
 * ({@link fromListed}: no log read), else read from the store (never resumed).
 */
export async function sessionSummary(sessions: SessionManager, store: Store, id: string, listed: Partial<StoreListItem> = {}): Promise<SessionSummary & { delegation?: Delegation }> {
  // A session live in this process: the host's own, or one another part runs that the host has not
  // borrowed yet (a subagent child its parent runs) — its stored log lags its write-behind.
  const agent = (await sessions.peek(id))?.agent ?? findLiveAgent(store, id)
  if (agent) {
    return {
      id, ...fromHeader(agent.session.header, listed), loaded: true, status: agent.status, lastSeq: agent.session.length - 1,
      lastEventAt: lastEventAt(agent.session.events),
      queue: { 'next-turn': agent.inbox.nextTurn.length, 'next-step': agent.inbox.nextStep.length },
      firstPrompt: livePrompt(agent.session, listed),
    }
  }
  // One session asked for alone (a host stream's frame): its own summary and header where the store
  // reads them without its log (PostgreSQL: two rows) instead of the whole log below.
  if (listed.createdAt === undefined && store.summary && store.header) listed = await oneListed(store, id) ?? listed
  // A store without `read` (memory) still names a session's parent and creation in its list, and its summary.
  if (!store.read && listed.createdAt === undefined) listed = (await store.list()).find((s) => s.id === id) ?? listed
  const kept = fromListed(id, listed)
  if (kept) return kept
  const stored = store.read ? await store.read(id).catch(() => undefined) : undefined
  const inbox = stored ? foldInbox(stored.events, stored.header.seedLength ?? 0) : undefined
  return {
    id, ...fromHeader(stored?.header, listed), loaded: false, status: 'idle',
    lastSeq: stored ? stored.events.length - 1 : -1,
    lastEventAt: stored ? lastEventAt(stored.events) : null,
    queue: inbox ? { 'next-turn': inbox['next-turn'].length, 'next-step': inbox['next-step'].length } : null,
    firstPrompt: stored ? summarizeLog(stored.header, stored.events).firstPrompt : (listed.firstPrompt ?? null),
  }
}

/** Tells `listener` the id of each session added, changed (status, queues, a turn, its agent closing) or removed (`removed: true`), null when the host closes; returns the unwatch (`HostFeed.watch`). */
export type WatchChanges = (listener: (id: string | null, removed?: true) => void) => () => void

/**
 * Every session of the store, summarised, with `delegation`. A row is built from the list entry
 * when the session is not live by then — but a session whose agent closed (or opened, ran a turn
 * and closed) after `store.list()` read it has an entry older than its log: its row showed the old
 * `lastSeq` and queue, and a host stream's `hello` kept it until the session's next change. So the
 * changes made while the list is read are watched from before it, and those sessions read again
 * (alone: live, or the store's current summary), after the change that made the entry old.
 */
async function currentRows(sessions: SessionManager, store: Store, watch: WatchChanges, keep: (id: string) => boolean = () => true): Promise<Array<SessionSummary & { delegation?: Delegation }>> {
  const changed = new Set<string>()
  // Removed meanwhile: its row, read before, is left out (its `session.removed` may have gone out before this list).
  const removed = new Set<string>()
  const unwatch = watch((id, gone) => {
    if (id === null) return
    if (gone) return void removed.add(id)
    changed.add(id)
    removed.delete(id)
  })
  try {
    const rows = await Promise.all((await store.list()).filter((s) => keep(s.id)).map((s) => sessionSummary(sessions, store, s.id, s)))
    return await Promise.all(rows.filter((row) => !removed.has(row.id)).map((row) => (changed.has(row.id) ? sessionSummary(sessions, store, row.id) : row)))
  } finally {
    unwatch()
  }
}

/** Every session of the store, summarised; `delegation` is left to {@link childSummaries}. */
export async function listSummaries(sessions: SessionManager, store: Store, watch: WatchChanges): Promise<SessionSummary[]> {
  return (await currentRows(sessions, store, watch)).map(({ delegation: _, ...summary }) => summary)
}

/** The sessions whose header names `parentId` as their delegating parent, in the store's order, none resumed. */
export async function childSummaries(sessions: SessionManager, store: Store, parentId: string, watch: WatchChanges): Promise<ChildSummary[]> {
  const all = await currentRows(sessions, store, watch, (id) => id !== parentId)
  return all.filter((s): s is ChildSummary => s.delegation !== undefined && s.delegation.parentSessionId === parentId)
}
