import { BosunError, ErrorCodes } from '../errors.js'
import { assertSessionId } from './session-id.js'
import type { SessionSummary, Store } from './types.js'

/**
 * Removes a stored session and its subagent descendants (the sessions whose header's
 * `delegation.parentSessionId` leads back to it), through the store's optional `remove`. Returns
 * the removed ids — the session first, then its descendants breadth-first — or `[]` when the store
 * has no session with this id.
 *
 * The session goes first: a crash halfway leaves orphaned children, which nothing makes again and
 * which can be removed on their own, whereas a parent left without its children would make them
 * again on recovery (it believes a crash left them unmade). For the same reason a child whose
 * parent is still stored is refused with CHILD_SESSION: remove the parent. Forks are copies and
 * stay. A session open for writing is refused by the store (SESSION_LOCKED) before anything is
 * removed; a descendant refused after its parent went is reported the same way, its id and the
 * ids removed before it in `details`.
 *
 * @example
 * const removed = await removeSession(store, 'support-42') // ['support-42', 'support-42-child-1']
 */
export async function removeSession(store: Store, id: string): Promise<string[]> {
  assertSessionId(id)
  if (typeof store.remove !== 'function') {
    throw new BosunError(ErrorCodes.STORE, `The ${store.name} store cannot remove sessions (it has no remove()). Use a store that can — memory, JSONL, SQLite or PostgreSQL — or remove the session with the store's own tools.`, { details: { store: store.name } })
  }
  const list = await store.list()
  const self = list.find((entry) => entry.id === id)
  if (self === undefined) return []
  const parent = await parentOf(store, self)
  if (parent !== undefined && list.some((entry) => entry.id === parent)) {
    throw new BosunError(ErrorCodes.CHILD_SESSION, `Session "${id}" is a subagent child of session "${parent}", which is still stored: remove "${parent}", which removes its children with it.`, { details: { sessionId: id, parentSessionId: parent } })
  }
  const order = await descendantsOf(store, list, id)
  const removed: string[] = []
  for (const next of order) {
    try {
      if (await store.remove(next)) removed.push(next)
    } catch (error) {
      if (removed.length === 0) throw error
      throw new BosunError(ErrorCodes.STORE, `Removed ${removed.map((r) => `"${r}"`).join(', ')}, then could not remove its descendant "${next}": ${error instanceof Error ? error.message : String(error)} Remove "${next}" on its own once that is fixed.`, { cause: error, details: { sessionId: next, removed } })
    }
  }
  return removed
}

/** The session's parent (subagent delegation), from the list item or, where the store does not say there, its header. */
async function parentOf(store: Store, entry: SessionSummary): Promise<string | undefined> {
  if (entry.delegation !== undefined) return entry.delegation?.parentSessionId
  const header = store.header ? await store.header(entry.id) : (await store.read?.(entry.id))?.header
  return header?.delegation?.parentSessionId
}

/** `id` and every session under it through delegations, breadth-first. */
async function descendantsOf(store: Store, list: readonly SessionSummary[], id: string): Promise<string[]> {
  const children = new Map<string, string[]>()
  for (const entry of list) {
    const parent = await parentOf(store, entry)
    if (parent === undefined) continue
    const siblings = children.get(parent)
    if (siblings === undefined) children.set(parent, [entry.id])
    else siblings.push(entry.id)
  }
  const order = [id]
  const seen = new Set(order)
  for (let i = 0; i < order.length; i++) {
    for (const child of children.get(order[i]!) ?? []) {
      if (seen.has(child)) continue
      seen.add(child)
      order.push(child)
    }
  }
  return order
}
