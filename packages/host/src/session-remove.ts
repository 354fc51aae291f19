import { BosunError, findLiveAgent, type SessionSummary, type Store } from '@bosun/core'
import { HostError, lockedElsewhere } from './errors.js'
import type { LiveSession } from './live-session.js'

/**
 * Removing a session (`DELETE /v1/sessions/:id`, docs/host.md "Removing a session"): what the
 * route checks before it stops anything, the gate that keeps requests from reopening a session
 * while it is removed, and the stop of what runs here.
 */

/** @internal For tests: how many requests waited for a removal under way (a race is tested once one did). */
export const removalStats = { waited: 0 }

/**
 * The sessions a removal is under way for, each with whether it was removed. A request for one of
 * them waits for the removal (SessionManager.use): it lands before the removal began, or is
 * answered 404 after it — never opens the session again between its close and its deletion.
 */
export class Removals {
  readonly #gates = new Map<string, Promise<boolean>>()

  has(id: string): boolean {
    return this.#gates.has(id)
  }

  /** Waits for the removal of `id` under way, if any: true when it removed the session. */
  async removed(id: string): Promise<boolean> {
    const gate = this.#gates.get(id)
    if (gate === undefined) return false
    removalStats.waited++
    return gate
  }

  /**
   * Runs `remove` with every one of `ids` gated; a second removal of one of them waits for the
   * first (then finds it gone). `remove` resolves the ids it removed.
   */
  async run(ids: readonly string[], remove: () => Promise<string[]>): Promise<string[]> {
    for (let busy = gateOf(this.#gates, ids); busy !== undefined; busy = gateOf(this.#gates, ids)) await busy
    const settles = new Map<string, (removed: boolean) => void>()
    for (const id of ids) this.#gates.set(id, new Promise<boolean>((resolve) => settles.set(id, resolve)))
    let removed: readonly string[] = []
    try {
      removed = await remove()
      return [...removed]
    } finally {
      for (const id of ids) {
        settles.get(id)!(removed.includes(id))
        this.#gates.delete(id)
      }
    }
  }
}

function gateOf(gates: ReadonlyMap<string, Promise<boolean>>, ids: readonly string[]): Promise<boolean> | undefined {
  for (const id of ids) {
    const gate = gates.get(id)
    if (gate !== undefined) return gate
  }
  return undefined
}

/**
 * `404 session-not-found` for a request that met a removal: it waited for it (the session is
 * gone), or it opens a parent being removed for one of its children (`removing: true`), which is
 * refused at once — the removal may be waiting for that child's open.
 */
export function beingRemoved(id: string): HostError {
  return new HostError('session-not-found', `Session "${id}" was removed (DELETE /v1/sessions/${id}) while this request waited for it: GET /v1/sessions lists the sessions there, POST /v1/sessions creates one.`, { id, removing: true })
}

/**
 * What a removal of `id` takes with it, read from one `store.list()` before anything is stopped:
 * its subagent descendants (breadth-first), or `undefined` when no such session is stored. A
 * subagent child whose parent is stored is refused here (`409 child-session`), before its turn is
 * canceled: `removeSession` would refuse it after.
 */
export async function removalPlan(store: Store, id: string): Promise<{ descendants: string[] } | undefined> {
  const listed = await store.list()
  const root = listed.find((s) => s.id === id)
  if (root === undefined) return undefined
  const parentId = await parentOf(store, root)
  if (parentId !== undefined && parentId !== id && listed.some((s) => s.id === parentId)) throw childSession(id, parentId)
  const children = new Map<string, string[]>()
  for (const s of listed) {
    const parent = await parentOf(store, s)
    if (parent !== undefined && parent !== s.id) children.set(parent, [...(children.get(parent) ?? []), s.id])
  }
  const descendants: string[] = []
  const seen = new Set([id])
  for (let i = -1; i < descendants.length; i++) {
    for (const child of children.get(i === -1 ? id : descendants[i]!) ?? []) {
      if (seen.has(child)) continue
      seen.add(child)
      descendants.push(child)
    }
  }
  return { descendants }
}

/** A session's subagent parent: from its list entry, or its header where the store's list does not say (as `removeSession` reads it). */
async function parentOf(store: Store, entry: SessionSummary): Promise<string | undefined> {
  if (entry.delegation !== undefined) return entry.delegation?.parentSessionId
  const header = store.header ? await store.header(entry.id) : (await store.read?.(entry.id))?.header
  return header?.delegation?.parentSessionId
}

/** `409 child-session`: a subagent's child is removed with its parent, not alone (core's CHILD_SESSION). */
export function childSession(id: string, parentId: string): HostError {
  return new HostError('child-session', `Session "${id}" is a subagent child of "${parentId}", which is still stored: remove "${parentId}", which removes its children with it (its recovery would otherwise make this child again).`, { id, parentSessionId: parentId })
}

/** `501 not-supported`: the host's store has no `remove` (a third-party store): nothing is stopped. */
export function removeUnsupported(store: Store): HostError {
  return new HostError('not-supported', `This host's store (${store.name}) cannot remove sessions: it has no remove(). Use a store that has one (memory, JSONL, SQLite, PostgreSQL), or delete the session where the store keeps it.`)
}

/**
 * A root the host cannot stop: another part of this process runs it (the host only borrowed it,
 * or never opened it) — refused before anything is canceled.
 */
export function refuseForeignRoot(store: Store, id: string, own: LiveSession | undefined): void {
  const running = findLiveAgent(store, id)
  if (running === undefined || (own !== undefined && own.borrowed !== true && own.agent === running)) return
  throw new HostError('session-locked', `Session "${id}" is run by another part of this process (not by the host): close it there, then remove it.`, { id })
}

/**
 * The store's refusal of a removal, as the client is told: another process or host has the
 * session (or one of its children) open for writing. Not relayed to the lease owner on a cluster.
 */
export function removalRefused(error: unknown, id: string): unknown {
  // Removed in part: a descendant refused after its parent went (removeSession's STORE error, the refusal its cause).
  const partly = removedInPart(error)
  const cause = partly.length > 0 ? (error as Error).cause : error
  if (!BosunError.is(cause, 'SESSION_LOCKED')) return error
  const locked = lockedElsewhere(id, cause.details, cause.message)
  const session = (cause.details as { sessionId?: unknown }).sessionId ?? (partly.length > 0 ? ((error as BosunError).details as { sessionId?: unknown }).sessionId : undefined)
  const which = typeof session === 'string' && session !== id ? `Session "${session}" (a subagent descendant of "${id}")` : `Session "${id}"`
  const where = typeof cause.details.owner === 'string' ? 'another host of the cluster' : 'another process'
  const before = partly.length > 0 ? ` Removed before it: ${partly.map((r) => `"${r}"`).join(', ')}; DELETE it on its own then.` : ''
  const refused = new HostError('session-locked', `${which} is open for writing in ${where}, so it was not removed.${before} Retry once it has been closed there (a host closes a session idle for its limits.idleMs; a lease also ends when its host stops renewing it: details.expiresInMs).`, locked.details)
  refused.serverNote = locked.serverNote
  return refused
}

/** The ids a removal that failed halfway removed before it failed (`removeSession`'s STORE error: `details.removed`); [] otherwise. */
export function removedInPart(error: unknown): string[] {
  if (!BosunError.is(error, 'STORE')) return []
  const { removed } = error.details as { removed?: unknown }
  return Array.isArray(removed) ? removed.filter((r): r is string => typeof r === 'string') : []
}

/**
 * Stops the live sessions being removed and removes them with `removeStored`: each is canceled
 * (its queues cleared: `keepInbox: false`; a parent's cancel cascades to its children), then the
 * host's own are closed — the root first, which closes its children first — releasing their
 * writers, locks and leases, so that the store can delete them. Their streams wait meanwhile
 * (`removal: 'pending'`), then end: with a `session.removed` frame for each removed, as after a
 * close otherwise (the removal failed: the next request opens it again).
 */
export async function stopAndRemove(lives: readonly LiveSession[], removeStored: () => Promise<string[]>, detach: (live: LiveSession) => void): Promise<string[]> {
  let removed: readonly string[] = []
  try {
    for (const live of lives) live.agent.cancel({ keepInbox: false })
    for (const live of lives) if (live.borrowed !== true) await live.agent.close()
    removed = await removeStored()
    return [...removed]
  } finally {
    for (const live of lives) {
      if (removed.includes(live.id)) live.removal = 'removed'
      else delete live.removal
      live.closed = true
      detach(live)
      for (const listener of [...live.listeners]) listener()
    }
  }
}
