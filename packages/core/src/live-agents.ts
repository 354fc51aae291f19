import { BosunError, ErrorCodes } from './errors.js'
import { Agent } from './loop/agent.js'
import type { Store } from './store/types.js'

/**
 * The agents this process has open, by store instance and session id. A session has one writer:
 * when a second part of the process needs a session another part already runs — a host asked
 * about a child its parent runs in the same process, a parent sending to a child the host opened —
 * it borrows the live agent instead of opening a second one (which a locking store refuses with
 * SESSION_LOCKED and the memory store answers by fencing the first writer, STALE_WRITER).
 *
 * Keyed by the store object, so two stores on the same directory or two generations of a test
 * store are distinct, as they are to their writers. The table lives on the store itself (a hidden
 * symbol property) and each agent carries its own registration: no weak collection holds an
 * agent. Why not WeakMaps: with an agent reachable only through a WeakMap (or a WeakRef), V8's
 * scavenges got far dearer for everything the agent allocates — a fresh session's 1,000-delta turn
 * went from ~0.7 to ~4.5 ms (docs/benchmarks.md, "Performance problems found"). The table keeps a
 * store alive no longer than its agents do, which keep it alive anyway.
 */
interface Slot {
  /** The whole agent on this session (its plugins set up); undefined while none is. */
  agent?: Agent
  /** An agent being built on this session: settles when it is registered or failed. */
  opening?: Promise<void>
  /** Offered during that build (see {@link offerChildOpener}); moved into the registration when it is whole. */
  childOpener?: ChildOpener
}

/**
 * Opens a session the agent delegates to (a subagent's child), the way its delegation says it
 * must be built — a profile's system prompt, model and tools — and keeps it as its own child: the
 * caller borrows the agent it resolves to. Resolves `undefined` for a session that is not this
 * agent's child (or not one it can open).
 */
export type ChildOpener = (sessionId: string) => Promise<Agent | undefined>

// Registered symbols (`Symbol.for`): a plugin loaded from another copy of @bosun/core (a config
// file's plugin resolved beside the app's core) still meets the same table and registrations.
const REGISTRATION = Symbol.for('bosun.registration')

/** A registered agent's way out of the registry. */
interface Registration {
  /** Resolves when the agent's `close()` has finished (its writer released). */
  closed: Promise<void>
  /** Removes the agent from its slot and resolves `closed`. */
  release: () => void
  /** Set once `close()` was called: a closing agent refuses input, so it is not lent any more. */
  started: boolean
  /** How this agent opens its children (a plugin offered it during setup). */
  childOpener?: ChildOpener
}

/** The store's table of slots, by session id: a non-enumerable property under a private symbol. */
const SLOTS = Symbol.for('bosun.liveAgents')
/** For a store that cannot take a property (frozen): correct, but on the slower weak path above. */
const frozenStores = new WeakMap<Store, Map<string, Slot>>()

function tableOf(store: Store, make: boolean): Map<string, Slot> | undefined {
  const own = (store as { [SLOTS]?: Map<string, Slot> })[SLOTS] ?? frozenStores.get(store)
  if (own || !make) return own
  const table = new Map<string, Slot>()
  if (Object.isExtensible(store)) Object.defineProperty(store, SLOTS, { value: table, enumerable: false })
  else frozenStores.set(store, table)
  return table
}

/** The registration of an agent `createAgent` built (undefined for any other agent). */
const registrationOf = (agent: Agent): Registration | undefined => (agent as { [REGISTRATION]?: Registration })[REGISTRATION]

function slotOf(store: Store, sessionId: string, make: boolean): Slot | undefined {
  const bySession = tableOf(store, make)
  if (!bySession) return undefined
  let slot = bySession.get(sessionId)
  if (!slot && make) bySession.set(sessionId, (slot = {}))
  return slot
}

function forget(store: Store, sessionId: string, slot: Slot): void {
  if (slot.agent === undefined && slot.opening === undefined) tableOf(store, false)?.delete(sessionId)
}

/**
 * The agent this process has open on `sessionId` of `store`, whole and not closing; `undefined`
 * when there is none (the session may still be stored: open it then).
 */
export function findLiveAgent(store: Store, sessionId: string): Agent | undefined {
  const agent = slotOf(store, sessionId, false)?.agent
  return agent && registrationOf(agent)?.started !== true ? agent : undefined
}

/** Every whole, not-closing agent this process has open on `store` (a host asks which children of a session still work). */
export function liveAgents(store: Store): Agent[] {
  const found: Agent[] = []
  for (const slot of tableOf(store, false)?.values() ?? []) {
    if (slot.agent && registrationOf(slot.agent)?.started !== true) found.push(slot.agent)
  }
  return found
}

/**
 * {@link findLiveAgent}, after waiting out an agent being built or closed on that session in this
 * process: resolves to the live agent to borrow, or `undefined` once nothing here holds the session
 * (open it yourself then).
 */
export async function awaitLiveAgent(store: Store, sessionId: string): Promise<Agent | undefined> {
  for (;;) {
    const slot = slotOf(store, sessionId, false)
    if (slot?.opening) {
      await slot.opening
      continue
    }
    const agent = slot?.agent
    const registration = agent && registrationOf(agent)
    if (agent && registration?.started) {
      await registration.closed
      continue
    }
    return agent
  }
}

/**
 * Resolves once `agent` has closed (its `close()` finished and it left the registry). A borrower
 * uses it to let go of an agent its owner closed. Never resolves for an agent that was not
 * registered (one whose `createAgent` failed is closed by it, before anyone could borrow it).
 */
export function whenAgentClosed(agent: Agent): Promise<void> {
  return registrationOf(agent)?.closed ?? new Promise(() => {})
}

/**
 * Borrows the live agent on the session, or opens one with `open` when this process holds none.
 * An `open` refused because another part of this process started opening the same session at the
 * same time (SESSION_LOCKED with `details.inProcess`) borrows that agent instead.
 */
export async function borrowOrOpen(store: Store, sessionId: string, open: () => Promise<Agent>): Promise<{ agent: Agent; borrowed: boolean }> {
  for (;;) {
    const live = await awaitLiveAgent(store, sessionId)
    if (live) return { agent: live, borrowed: true }
    try {
      return { agent: await open(), borrowed: false }
    } catch (error) {
      if (!isOpenInProcess(error)) throw error
    }
  }
}

const isOpenInProcess = (error: unknown): boolean =>
  BosunError.is(error, ErrorCodes.SESSION_LOCKED) && (error.details as { inProcess?: unknown } | undefined)?.inProcess === true

/**
 * Offers how the agent being built on `sessionId` opens its children (see {@link ChildOpener}):
 * a plugin that delegates (`@bosun/plugin-subagents`) calls it from `setup`, with the context's
 * store and session id. Whoever else in the process needs one of those children — a host a user
 * asks about a child — then asks the parent with {@link openThroughParent} instead of building the
 * child from its own config. The offer lives and dies with the agent. Returns `false` (and keeps
 * nothing) when no agent is being built on that session here — called outside a setup.
 */
export function offerChildOpener(store: Store, sessionId: string, open: ChildOpener): boolean {
  const slot = slotOf(store, sessionId, false)
  if (!slot?.opening) return false
  slot.childOpener = open
  return true
}

/**
 * Asks a live agent of this process to open its child `childId` (see {@link offerChildOpener}):
 * the agent on `parentSessionId` when the child's header names it, else every live agent that
 * offered an opener (a child spawned a moment ago may not be stored yet). Resolves the child's
 * agent — borrow it, its parent owns it — or `undefined` when no live agent here opens it (build
 * it yourself then).
 */
export async function openThroughParent(store: Store, childId: string, parentSessionId?: string): Promise<Agent | undefined> {
  const parents = parentSessionId === undefined ? liveAgents(store) : [await awaitLiveAgent(store, parentSessionId)]
  for (const parent of parents) {
    const open = parent && parent.session.header.id !== childId ? registrationOf(parent)?.childOpener : undefined
    const child = open && (await open(childId))
    if (child) return child
  }
  return undefined
}

/**
 * Called by `createAgent` before it opens the session (synchronously, so two opens in one tick
 * see each other): refuses while another agent of this process is being built on it, else marks
 * the session as being opened. The returned functions end that mark: `opened` registers the whole
 * agent (it replaces an older one, which a crash test may have abandoned: the newest writer is the
 * one that can write), `failed` leaves the registry as it was.
 */
export function beginOpen(store: Store, sessionId: string): { opened(agent: RegisteredAgent): void; failed(): void } {
  const slot = slotOf(store, sessionId, true)!
  if (slot.opening) {
    throw new BosunError(
      ErrorCodes.SESSION_LOCKED,
      `Session "${sessionId}" is being opened by another agent in this process: borrow that agent (awaitLiveAgent or borrowOrOpen from @bosun/core) instead of opening it twice.`,
      { details: { sessionId, inProcess: true } },
    )
  }
  let done!: () => void
  slot.opening = new Promise((resolve) => (done = resolve))
  const end = () => {
    slot.opening = undefined
    done()
  }
  return {
    opened(agent) {
      let resolve!: () => void
      const closed = new Promise<void>((r) => (resolve = r))
      const release = () => {
        if (slot.agent === agent) slot.agent = undefined
        forget(store, sessionId, slot)
        resolve()
      }
      agent[REGISTRATION] = { closed, release, started: false, ...(slot.childOpener ? { childOpener: slot.childOpener } : {}) }
      slot.childOpener = undefined
      slot.agent = agent
      end()
    },
    failed() {
      slot.childOpener = undefined
      end()
      forget(store, sessionId, slot)
    },
  }
}

/**
 * The agent `createAgent` builds: it leaves the registry when its `close()` has finished, and is
 * lent to no one from the moment `close()` is called.
 */
export class RegisteredAgent extends Agent {
  #closing: Promise<void> | undefined
  /** Set by the registry once the agent is whole (a field from construction: one shape for all). */
  [REGISTRATION]: Registration | undefined = undefined

  override close(): Promise<void> {
    // Only the first call closes; later calls keep Agent's answer (they wait for idle), so that a
    // teardown that closes its own agent again does not wait for itself.
    if (this.#closing) return super.close()
    const registration = this[REGISTRATION]
    if (registration) registration.started = true
    this.#closing = super.close().finally(() => registration?.release())
    return this.#closing
  }
}
