import { liveAgents, openThroughParent, whenAgentClosed, type Agent, type Store } from '@bosun/core'

/**
 * The subagent children the host stream follows: a child a session this host follows has spawned
 * is announced (`session.added`) once its parent has made it, and its status is sent as it changes
 * while it runs in this process (its own spawns too), until it closes. The host does not borrow it
 * for that — a child no client uses keeps nothing open — it only listens to its log.
 */
export class ChildAnnouncer {
  /** The children followed now, until each closes. */
  readonly #announced = new Set<string>()

  constructor(
    readonly store: Store,
    /** The host stream's `session.added` and `session.status` (SessionManager's onChange). */
    readonly onChange: (id: string, kind: 'added' | 'changed') => void,
    /** Whether the host is closing: nothing more is followed, nor said. */
    readonly closing: () => boolean,
  ) {}

  /** Session `parentId` spawned `childId` (its `subagent/spawned` event). */
  announce(parentId: string, childId: string): void {
    if (this.closing() || this.#announced.has(childId)) return
    this.#announced.add(childId)
    // The parent hands over the child it is spawning (it waits for the spawn), as for a request.
    void openThroughParent(this.store, childId, parentId).then((child) => {
      if (child === undefined || this.closing()) {
        this.#announced.delete(childId)
        return
      }
      this.onChange(childId, 'added')
      const unsubscribe = child.session.subscribe((event) => {
        if (event.type === 'agent/inbox/spliced' || event.type === 'turn/start' || event.type === 'turn/end') this.onChange(childId, 'changed')
        else if (event.type === 'subagent/spawned') this.announce(childId, (event.data as { childId: string }).childId)
      })
      void whenAgentClosed(child).then(() => {
        unsubscribe()
        this.#announced.delete(childId)
        if (!this.closing()) this.onChange(childId, 'changed')
      })
    }, () => this.#announced.delete(childId))
  }
}

/**
 * Whether a subagent child of session `id` (or a child of one) still works in this process, or
 * is still used through the host (`followed`: a stream on it, a request within idleMs — a child
 * opened cold through its parent is borrowed from it): closing an idle parent closes its
 * children, so it is kept open until they are idle and let go too.
 */
export function hasWorkingChildren(store: Store, id: string, followed: (agent: Agent) => boolean): boolean {
  const agents = liveAgents(store)
  const seen = new Set<string>()
  const working = (parentId: string): boolean => agents.some((agent) => {
    const { header } = agent.session
    if (header.delegation?.parentSessionId !== parentId || seen.has(header.id)) return false
    seen.add(header.id)
    return agent.status !== 'idle' || followed(agent) || working(header.id)
  })
  return working(id)
}
