import { findLiveAgent, openThroughParent, type SessionHeader, type Store } from '@bosun/core'
import { HostError } from './errors.js'

/**
 * A subagent's child is its parent's to build: the parent's plugin knows the child's profile (its
 * system prompt, model and tool allowlist), which the child's header does not record, and the
 * parent must see every settlement of the child, also of a turn a user started through the host.
 * So before the host opens a session itself, it asks the child's parent, in this process, to open
 * it (`openThroughParent` from `@bosun/core`), opening the parent first if it is not running (a
 * host restart, a settled one-shot child). The host then borrows the child from its parent.
 *
 * Nothing happens for a session that is not a child, or when no parent here opens it (its
 * parent's session is gone or cannot be opened, the plugin is not configured): the host then
 * builds it from its own config, as any session. A parent another process holds (another host of
 * a cluster, another process on the same files) owns the child: the host refuses it with
 * `session-locked` rather than build it without its profile and take it from that parent (a
 * cluster relays the request to the parent's owner, whose host opens it through the parent). A session not stored yet may be a child its parent has
 * just spawned: the live parents are asked, and one that spawned it answers once it is made.
 *
 * @param useParent opens (or borrows) the parent as a host session; `chain` holds the sessions
 *   being opened this way, so a corrupt header naming its own descendant cannot loop.
 * @returns `true` when the header read showed the session stored (the caller need not ask the
 *   store again), else `undefined`.
 */
export async function openChildThroughParent(
  store: Store,
  id: string,
  chain: ReadonlySet<string>,
  useParent: (parentId: string, chain: ReadonlySet<string>) => Promise<unknown>,
): Promise<true | undefined> {
  if (findLiveAgent(store, id) || (!store.header && !store.read)) return undefined
  const header = await storedHeader(store, id)
  if (header === undefined) {
    await openThroughParent(store, id)
    return undefined
  }
  const parentId = header.delegation?.parentSessionId
  if (parentId === undefined || parentId === id || chain.has(parentId)) return true
  const through = new Set(chain).add(id)
  if (!findLiveAgent(store, parentId) && !(await useParent(parentId, through).then(() => true, (error: unknown) => heldElsewhere(error, id, parentId)))) return true
  await openThroughParent(store, id, parentId)
  return true
}

/** A parent that cannot be opened leaves the child to the host's own config (false), unless another process holds it: then the child is refused too. */
function heldElsewhere(error: unknown, id: string, parentId: string): false {
  // Not the host shutting down (no details): the parent's own open was refused (or its parent's, up the chain).
  if (!(error instanceof HostError) || error.code !== 'session-locked' || (error.details as { id?: unknown } | undefined)?.id !== parentId) return false
  throw new HostError('session-locked', `Session "${id}" is a subagent child whose parent "${parentId}" is open in another process (or host): send to it there, where its parent opens it.`, { id, parentSessionId: parentId })
}

/** The stored header, read without the log where the store can (`Store.header`); `undefined` if there is no such session. */
async function storedHeader(store: Store, id: string): Promise<SessionHeader | undefined> {
  return store.header ? store.header(id) : (await store.read?.(id))?.header
}

/**
 * Which parent each open is waiting for (an open → the parent it opens first). Two sessions whose
 * headers name each other as parent (a damaged store), asked for at once, would each wait for the
 * other's pending open: before it waits for a pending open, a parent open asks whether that open
 * waits, through its own parents, for one of the children it is opened for — then it refuses.
 */
export class ParentWaits {
  readonly #waits = new Map<string, string>()

  /** Runs `open` (opening `parentId` for its child `id`), noting the wait meanwhile. */
  async during<T>(id: string, parentId: string, open: () => Promise<T>): Promise<T> {
    this.#waits.set(id, parentId)
    try {
      return await open()
    } finally {
      this.#waits.delete(id)
    }
  }

  /** Whether the pending open of `id` waits, through parents, for one of `chain` (the children this open is for). */
  leadsBack(id: string, chain: ReadonlySet<string>): boolean {
    const seen = new Set<string>()
    for (let at = this.#waits.get(id); at !== undefined && !seen.has(at); at = this.#waits.get(at)) {
      if (chain.has(at)) return true
      seen.add(at)
    }
    return false
  }
}
