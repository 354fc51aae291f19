import { BosunError, ErrorCodes, findLiveAgent, openThroughParent, type Agent, type SessionHeader, type Store } from '@bosun/core'
import { openAgent, type CliConfig } from './agent.js'
import { safeText } from './terminal-safe.js'
import { messageOf } from './errors.js'

/** The agent the CLI runs on a session, and which agents it must close and wait for. */
export interface OpenedSession {
  /** The session's agent: the one the chat or the run talks to. */
  agent: Agent
  /**
   * For a subagent child opened through its parent: that parent, its parent… up to the top one,
   * nearest first. Empty for a session the CLI built itself.
   */
  parents: Agent[]
  /** The profile the child was spawned with (from its parent's `subagent/spawned`), if any. */
  profile?: string
}

/**
 * Opens `sessionId` with the config's agent — unless the session is a subagent's child. A child
 * is its parent's to build: the parent's plugin knows its profile (system prompt, model, tools),
 * which the child's header does not record, and the parent must hear of every turn settled there.
 * So the CLI opens the parent first (itself through its own parent, for a grandchild), asks it for
 * the child (`openThroughParent` from `@bosun/core`, as the host does) and borrows the child.
 *
 * A child whose parent cannot open it (its session is gone, another process holds it, its config
 * has no subagents plugin, headers whose parents name each other) is built from the config as
 * before; `note` is told so, in one line, as it is told through which parent a child was opened.
 */
export async function openSessionAgent(cfg: CliConfig, store: Store, sessionId: string, note: (line: string) => void): Promise<OpenedSession> {
  const through = await openThroughParents(cfg, store, sessionId, new Set(), note)
  if (through) {
    const ids = through.parents.map((parent) => parent.session.header.id).reverse()
    const parents = ids.length === 1 ? `its parent ${ids[0]}` : `its parents ${ids.join(' → ')}`
    const profile = through.profile === undefined ? "on its parent's config" : `with its profile ${through.profile}`
    note(safeText(`session ${sessionId} is a subagent child: opened through ${parents}, ${profile}; the parent hears of each turn settled here`))
    return through
  }
  return { agent: await openAgent(cfg, store, sessionId), parents: [] }
}

/**
 * The child opened through its parent, or `undefined` when `id` is no child (or its parent could
 * not open it: noted). `chain` holds the sessions already on the way up, so that headers whose
 * parents name each other do not loop: such a parent is built from the config.
 */
async function openThroughParents(cfg: CliConfig, store: Store, id: string, chain: ReadonlySet<string>, note: (line: string) => void): Promise<OpenedSession | undefined> {
  const parentId = (await storedHeader(store, id))?.delegation?.parentSessionId
  if (parentId === undefined) return undefined
  const fallBack = (why: string): undefined => {
    note(safeText(`note: session ${id} is a subagent child of ${parentId}, which ${why}: it runs on this config's agent, without the profile it was spawned with, and its parent does not hear of it`))
    return undefined
  }
  if (parentId === id || chain.has(parentId)) return fallBack('is one of its own descendants (the headers name each other)')
  // A damaged header's parent id may not even be a valid id: the store refuses to read it.
  if ((await storedHeader(store, parentId).catch(() => undefined)) === undefined) return fallBack('is not in this store')
  let parent: OpenedSession
  try {
    parent = (await openThroughParents(cfg, store, parentId, new Set(chain).add(id), note)) ?? { agent: await openAgent(cfg, store, parentId), parents: [] }
  } catch (error) {
    heldElsewhere(error, id, parentId)
    return fallBack(`could not be opened (${messageOf(error)})`)
  }
  const child = await openThroughParent(store, id, parentId).catch(async (error: unknown) => {
    await closeTop(parent)
    throw error
  })
  if (!child) {
    await closeTop(parent)
    return fallBack('does not open it (its config has no subagents plugin, or its log does not hold this child)')
  }
  const profile = spawnedProfile(parent.agent, id)
  return { agent: child, parents: [parent.agent, ...parent.parents], ...(profile === undefined ? {} : { profile }) }
}

/**
 * A parent another process holds (a `bosun serve`, another chat) owns its children: building the
 * child here without its profile would take it from under that parent, which would never hear of
 * the turn. So the child is refused as locked too (as the host does), naming where to go instead.
 */
function heldElsewhere(error: unknown, id: string, parentId: string): void {
  if (!BosunError.is(error, ErrorCodes.SESSION_LOCKED) || (error.details as { inProcess?: unknown } | undefined)?.inProcess === true) return
  throw new BosunError(
    ErrorCodes.SESSION_LOCKED,
    safeText(`Session "${id}" is a subagent child whose parent "${parentId}" is open in another process (a \`bosun serve\`, another chat): continue the child there, where its parent opens it with its profile, or end that process first.`),
    { details: { sessionId: id, parentSessionId: parentId } },
  )
}

/** True for a child opened through its parent that its parent has closed (a one-shot child, once it settled). */
export function childClosed(store: Store, opened: OpenedSession): boolean {
  return opened.parents.length > 0 && findLiveAgent(store, opened.agent.session.header.id) !== opened.agent
}

/** The child opened anew by the same parent (with its profile), or `undefined` when the parent does not open it. */
export async function reopenChild(store: Store, opened: OpenedSession): Promise<OpenedSession | undefined> {
  const agent = await openThroughParent(store, opened.agent.session.header.id, opened.parents[0]!.session.header.id)
  return agent && { ...opened, agent }
}

/** The agent the CLI opened itself: the top parent of a child, else the session's own agent. Closing it closes its children first. */
export function topAgent(opened: OpenedSession): Agent {
  return opened.parents.at(-1) ?? opened.agent
}

const closeTop = (opened: OpenedSession): Promise<void> => topAgent(opened).close()

/** The profile named by the parent's `subagent/spawned` for `childId`. */
function spawnedProfile(parent: Agent, childId: string): string | undefined {
  for (const event of parent.session.events) {
    if (event.type !== 'subagent/spawned') continue
    const data = event.data as { childId?: unknown; agent?: unknown }
    if (data.childId === childId) return typeof data.agent === 'string' ? data.agent : undefined
  }
  return undefined
}

/** The stored header, without reading the log where the store can (`Store.header`); `undefined` if there is no such session (or the store cannot tell). */
async function storedHeader(store: Store, id: string): Promise<SessionHeader | undefined> {
  return store.header ? store.header(id) : (await store.read?.(id))?.header
}
