import { findLiveAgent, liveAgents, openThroughParent, type Agent, type SessionHeader, type Store } from '@bosun/core'
import { HostError } from './errors.js'
import { beingRemoved } from './session-remove.js'

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
 * For a session not stored yet, a parent's answer is waited for at most `spawnWaitMs` (see
 * {@link awaitParentOpen}): a spawn whose store never finishes making the child must not hold the
 * request forever. Past it the host
 * answers `503 session-unavailable` with `retry-after`; a parent that closes meanwhile ends the
 * wait at once, with the same answer.
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
  spawnWaitMs: number = DEFAULT_SPAWN_WAIT_MS,
): Promise<true | undefined> {
  if (findLiveAgent(store, id) || (!store.header && !store.read)) return undefined
  const header = await storedHeader(store, id)
  if (header === undefined) {
    // Not stored (yet): each live parent is asked whether it spawned it, as `openThroughParent(store, id)` would.
    const deadline = Date.now() + spawnWaitMs
    for (const parent of liveAgents(store)) {
      // One that started closing while an earlier one was asked answers nothing any more (openThroughParent skips it too).
      if (parent.session.header.id === id || findLiveAgent(store, parent.session.header.id) !== parent) continue
      if ((await awaitParentOpen(store, id, parent, deadline)) !== undefined) break
    }
    return undefined
  }
  const parentId = header.delegation?.parentSessionId
  if (parentId === undefined || parentId === id || chain.has(parentId)) return true
  const through = new Set(chain).add(id)
  if (!findLiveAgent(store, parentId) && !(await useParent(parentId, through).then(() => true, (error: unknown) => heldElsewhere(error, id, parentId)))) return true
  // Stored: the spawn made it, and the parent opens it as it opens any child (not bounded: a long
  // log takes its time, as it would for the host).
  await openThroughParent(store, id, parentId)
  return true
}

/** How long a request for a subagent's child waits for its parent to make it (`limits.spawnWaitMs`). */
export const DEFAULT_SPAWN_WAIT_MS = 30_000
/** What `retry-after` (seconds) tells a client whose request outwaited a spawn. */
const SPAWN_RETRY_AFTER_S = 5

function unavailable(id: string, parentId: string, why: string, then: string): HostError {
  return new HostError(
    'session-unavailable',
    `Session "${id}" is a subagent child not ready yet: ${why}. Retry in ${SPAWN_RETRY_AFTER_S} s; ${then}.`,
    { id, parentSessionId: parentId, retryAfter: SPAWN_RETRY_AFTER_S },
  )
}

/**
 * Asks the live `parent` to open its child `id` (`openThroughParent`), and waits for its answer
 * until `deadline` (the parent waits for a spawn in progress until its task is admitted) or until
 * the parent starts closing, whichever comes first. Resolves the child's agent, or `undefined`
 * when the parent does not open it (not its child); throws `session-unavailable` at the deadline,
 * or when the parent closes first.
 */
async function awaitParentOpen(store: Store, id: string, parent: Agent, deadline: number): Promise<Agent | undefined> {
  const parentId = parent.session.header.id
  const opening = openThroughParent(store, id, parentId)
  let timer: ReturnType<typeof setTimeout> | undefined
  let unsubscribe = (): void => {}
  const ended = new Promise<'timeout' | 'closed'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()))
    timer.unref?.()
    // A closing parent is no longer lent (findLiveAgent); its close aborts the turn that spawns,
    // which logs the turn's end: each event of the parent checks again, no polling. (Not checked
    // at once: it was live a moment ago, and an agent that is no parent of `id` answers at once.)
    unsubscribe = parent.session.subscribe(() => {
      if (findLiveAgent(store, parentId) !== parent) resolve('closed')
    })
  })
  try {
    const outcome = await Promise.race([opening.then((child) => ({ child })), ended])
    if (outcome === 'timeout') {
      throw unavailable(id, parentId, `its parent "${parentId}" is still making it (the store has not finished creating the session)`, 'if this persists, check the store the parent writes to')
    }
    if (outcome === 'closed') {
      // The child's open may still be on its way in this process (held where the spawn was): not waited for either.
      throw unavailable(id, parentId, `its parent "${parentId}" closed before the child's session was made`, 'reopening the parent finishes the spawn (recovery adopts the child)')
    }
    return outcome.child
  } finally {
    clearTimeout(timer)
    unsubscribe()
    // Outwaited, the parent's open still settles later (its child is then the parent's): never unhandled.
    opening.catch(() => {})
  }
}

/** A parent that cannot be opened leaves the child to the host's own config (false), unless another process holds it: then the child is refused too. */
function heldElsewhere(error: unknown, id: string, parentId: string): false {
  // The parent is being removed (session-remove.ts), and its children with it: not opened on its own meanwhile.
  if (error instanceof HostError && (error.details as { removing?: unknown } | undefined)?.removing === true) throw beingRemoved(id)
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
