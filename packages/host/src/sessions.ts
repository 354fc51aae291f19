import { assertSessionId, BosunError, borrowOrOpen, findLiveAgent, whenAgentClosed, type Agent, type SessionEvent, type SessionHeader, type Store } from '@bosun/core'
import { ChildAnnouncer, hasWorkingChildren } from './child-announce.js'
import { DEFAULT_SPAWN_WAIT_MS, openChildThroughParent, ParentWaits } from './child-open.js'
import { HostError, lockedElsewhere } from './errors.js'
import { DEFAULT_OPEN_TIMEOUT_MS } from './limits.js'
import { liveSession, type DroppedSession, type LiveSession } from './live-session.js'
import { closeAgain, closeFollowed } from './session-close.js'
import { beingRemoved, refuseForeignRoot, Removals, stopAndRemove } from './session-remove.js'
import { letStaleSessionGo, staleWriterOf } from './session-dropped.js'
import { OpenDeadline, withinOpenTimeout } from './open-timeout.js'
import { logHost } from './host-log.js'
import { pageOf, readStored, readStoredFrom, storedExists, storedPage } from './stored-reads.js'
import { unwrittenMessages, type UnwrittenMessage } from './unwritten.js'

export type { DroppedSession, LiveSession } from './live-session.js'

/**
 * Builds (creating or resuming) the agent of one session on the host's store. `signal` aborts when
 * the open outlasts `limits.openTimeoutMs`: pass it to `createAgent({ signal })`, which then gives
 * up the build and releases the session (a plugin setup that never settles would hold its lock or
 * lease until the process exits).
 */
export type AgentFactory = (options: { sessionId: string; store: Store; signal: AbortSignal }) => Promise<Agent>

/** The host's hold on an agent's log and status: one per agent, however often it is borrowed (a hook tap cannot be removed). */
interface Taps {
  /** The session the taps feed; undefined once the host let go. */
  live?: LiveSession
  unsubscribe?: () => void
}

export function checkSessionId(id: string): void {
  try {
    assertSessionId(id)
  } catch (error) {
    throw new HostError('invalid-request', error instanceof Error ? error.message : String(error), { path: '/id' })
  }
}

const sessionExists = (id: string) => new HostError('session-exists', `Session "${id}" already exists: choose another id, or omit it for a new one.`, { id })

/**
 * One host, many sessions: agents created on first use and closed after an idle period.
 *
 * A session another part of this process already runs (a child its subagent parent opened on the
 * host's store) is **borrowed**, not opened a second time — a second writer would be refused
 * (SESSION_LOCKED) or would fence the first (STALE_WRITER). A borrowed session is let go, never
 * closed: on idle, on `drop` and on host close the host only detaches from it; when its owner
 * closes it, its streams end and it is forgotten, so the next request opens it afresh.
 */
export class SessionManager {
  /**
   * Called by {@link drop} with the user messages the dropped session admitted after the last seq
   * known durable, each as it was last (none canceled since; unwritten.ts) — accepted (202), maybe
   * never written: a cluster posts them to the session's
   * mailbox, so that its new owner admits each once (cluster.ts).
   */
  handOver?: (id: string, messages: readonly UnwrittenMessage[]) => void
  readonly #live = new Map<string, Promise<LiveSession>>()
  /**
   * The host's taps on each agent it ever used, until that agent closes. A Map, not a WeakMap: an
   * agent reachable through a weak collection made V8's young collections far dearer for what it
   * allocates (docs/benchmarks.md, "Performance problems found", 7).
   */
  readonly #taps = new Map<Agent, Taps>()
  /** The parents opens are waiting for (child-open.ts): a wait that would close a cycle is refused. */
  readonly #parentWaits = new ParentWaits()
  /** Sessions retired for idleness whose agents are still closing. */
  readonly #retiring = new Map<string, Promise<void>>()
  /**
   * Opens that outlasted `openTimeoutMs` and still run: their signal aborted, a `createAgent` given
   * it settles at once (releasing the session), one that ignores it (an `agentFactory` that does
   * not pass it on) when its setups do. The next open of the session waits for one to settle — and
   * close what it opened late — within its own bound. The host's close does not wait for them:
   * they may never settle.
   */
  readonly #stalled = new Map<string, Promise<void>>()
  /** The subagent children the host stream follows (child-announce.ts). */
  readonly #children: ChildAnnouncer
  /** The removals under way (session-remove.ts): a request for one of their sessions waits for it. */
  readonly #removals = new Removals()
  #closing = false
  #closed: Promise<void> | undefined
  /** Sessions whose close failed (a store that could not flush), with that failure: the next `close()` tries them again. */
  readonly #unclosed = new Map<LiveSession, unknown>()

  constructor(
    readonly store: Store,
    readonly factory: AgentFactory,
    readonly idleMs: number,
    /** Told when a live session's status or queues change, and when a session is created. */
    readonly onChange: (id: string, kind: 'added' | 'changed') => void = () => {},
    /** How long a request waits for a parent to make a child it is spawning (child-open.ts). */
    readonly spawnWaitMs: number = DEFAULT_SPAWN_WAIT_MS,
    /** How long an open (the agent's build: its plugins' setups, the store's open) may take: `503 session-unavailable` after it. */
    readonly openTimeoutMs: number = DEFAULT_OPEN_TIMEOUT_MS,
    /** The plugins each agent is built with, when the host knows them: named by an open's timeout as what to check. */
    readonly plugins: readonly string[] = [],
  ) {
    this.#children = new ChildAnnouncer(store, (id, kind) => this.onChange(id, kind), () => this.#closing)
  }

  liveIds(): string[] {
    return [...this.#live.keys()]
  }

  /** A live session, without resuming one. */
  async peek(id: string): Promise<LiveSession | undefined> {
    const live = this.#live.get(id)
    return live === undefined ? undefined : live.catch(() => undefined)
  }

  async exists(id: string): Promise<boolean> {
    if (this.#live.has(id)) return true
    return storedExists(this.store, id)
  }

  /** Reads a session's header and events without resuming it (the live log when it runs). */
  async read(id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[]; live?: LiveSession } | undefined> {
    const live = await this.#readLive(id)
    if (live) return { header: live.agent.session.header, events: live.agent.session.events, live }
    return readStored(this.store, id)
  }

  /**
   * The events of session `id` from seq `from` on, without resuming it, or `live` when it is live
   * here (its live log has them); else read from the store (stored-reads.ts).
   */
  async readFrom(id: string, from: number): Promise<{ events: readonly SessionEvent[]; live?: LiveSession } | undefined> {
    const live = await this.#readLive(id)
    if (live) return { events: [], live }
    return readStoredFrom(this.store, id, from)
  }

  /**
   * A page of a session's log — at most `limit` events after seq `after` — and its last seq,
   * without resuming it: from the live log when it runs here, else from the store (stored-reads.ts).
   */
  async page(id: string, after: number, limit: number): Promise<{ lastSeq: number; events: readonly SessionEvent[] } | undefined> {
    const live = await this.#readLive(id)
    return live === undefined ? storedPage(this.store, id, after, limit) : pageOf(live.agent.session.events, after, limit)
  }

  /**
   * The session if it is live in this process: the host's own, or one another part of this
   * process runs (a child its parent runs), borrowed — its log is ahead of the store's, so it is
   * read live (and streamed live, not from the store). If its owner closes it meanwhile, the
   * store has it all: undefined. Never resumes a stored session.
   */
  async readLive(id: string): Promise<LiveSession | undefined> {
    return this.#readLive(id)
  }

  async #readLive(id: string): Promise<LiveSession | undefined> {
    const live = await this.peek(id)
    if (live) return live
    if (!this.#closing && findLiveAgent(this.store, id)) return this.use(id).catch(() => undefined)
    return undefined
  }

  /**
   * The live session, resumed from the store on first use; `session-not-found` if the store has
   * none. `create: true` makes a new one (`session-exists` if the id is taken, also when another
   * host or process creates it first); `'if-missing'` resumes or creates, decided here so that two
   * first requests for one id share one open — and when another host or process creates the id
   * first, it is opened instead (once), as if it had existed.
   */
  async use(id: string, options: { create?: boolean | 'if-missing' } = {}): Promise<LiveSession> {
    return this.#use(id, options, new Set())
  }

  /** {@link use}; `chain`: the subagent children whose parents are being opened for them (see child-open.ts). */
  async #use(id: string, options: { create?: boolean | 'if-missing' }, chain: ReadonlySet<string>): Promise<LiveSession> {
    checkSessionId(id)
    if (this.#closing) throw new HostError('session-locked', 'The host is shutting down: retry against the restarted host.')
    // A removal under way: waited for (a parent opened for its child is refused at once — the
    // removal may be waiting for that child's open); once it removed the session, only a create makes it anew.
    if (this.#removals.has(id) && (chain.size > 0 || ((await this.#removals.removed(id)) && options.create !== true))) throw beingRemoved(id)
    const existing = this.#live.get(id)
    if (existing && options.create === true) throw sessionExists(id)
    if (existing) {
      if (this.#parentWaits.leadsBack(id, chain)) throw new HostError('session-locked', `Session "${id}" is being opened for a session it names as its own parent (a damaged store): not waited for.`)
      const live = await existing
      if (!live.borrowed || findLiveAgent(this.store, id) === live.agent) return this.#touch(live)
      // Its owner is closing it: let go now, and open it afresh below (once the close finished).
      this.#ownerClosed(live)
    }
    const deadline = new OpenDeadline()
    const opening = this.#open(id, options.create ?? false, chain, deadline)
    const pending = withinOpenTimeout(id, this.openTimeoutMs, opening, deadline, this.plugins)
    pending.catch(() => {
      if (!deadline.expired) return
      // The build given up names the setup that hung: what the 503 tells the user to look for in the log.
      const settled = opening.then(() => {}, (error: unknown) => {
        if (BosunError.is(error, 'OPEN_ABORTED')) logHost(`[bosun host] ${error.message}`)
      })
      this.#stalled.set(id, settled)
      void settled.then(() => {
        if (this.#stalled.get(id) === settled) this.#stalled.delete(id)
      })
    })
    this.#live.set(id, pending)
    try {
      return this.#touch(await pending)
    } catch (error) {
      if (this.#live.get(id) === pending) this.#live.delete(id)
      throw error
    }
  }

  async #open(id: string, create: boolean | 'if-missing', chain: ReadonlySet<string>, deadline: OpenDeadline): Promise<LiveSession> {
    // A retired agent may still be closing (flushing, releasing its lock), an open that timed out
    // may still be building one: a second agent on the same log must wait for it, or it finds the
    // session locked.
    const retiring = this.#retiring.get(id)
    if (retiring !== undefined) await retiring
    const stalled = this.#stalled.get(id)
    if (stalled !== undefined) await stalled
    // A subagent's child is built by its parent (its profile), then borrowed below. The header
    // read for that also says the session is stored: not asked again.
    const stored = create === true ? undefined : await openChildThroughParent(this.store, id, chain, (parentId, through) => this.#parentWaits.during(id, parentId, () => this.#use(parentId, {}, through)), this.spawnWaitMs)
    let exists = true
    const { agent, borrowed } = await borrowOrOpen(this.store, id, async () => {
      exists = stored ?? (await storedExists(this.store, id))
      if (create === true && exists) throw sessionExists(id)
      if (!create && !exists) throw new HostError('session-not-found', `No session "${id}" in this host's store: create it with POST /v1/sessions.`, { id })
      return this.#build(id, deadline.signal)
    }).catch((error: unknown) => {
      // Open-or-create lost the race for a new id: another host (or process) created it while this
      // one's agent was being built (its plugin setups run before the store's create). As if it had
      // existed when this one looked: opened now, once — locked by its creator, that is
      // `session-locked` (a cluster host relays to the owner); a second refusal is the answer.
      if (create !== 'if-missing' || exists || !(error instanceof HostError && error.code === 'session-exists')) throw error
      return borrowOrOpen(this.store, id, async () => {
        exists = await storedExists(this.store, id)
        return this.#build(id, deadline.signal)
      })
    })
    if (borrowed && create === true) throw sessionExists(id)
    if (deadline.expired) {
      // Opened after its caller gave up (openTimeoutMs): closed again, its lock or lease released,
      // so that the next open of the session (waiting in #stalled) opens it afresh.
      if (!borrowed) await agent.close().catch((error: unknown) => logHost(`[bosun host] closing session ${id}, opened after its open timed out, failed:`, error))
      throw new HostError('session-unavailable', `Session "${id}" was opened after its open timed out: closed again.`, { id })
    }
    const live = this.#attach(id, agent, borrowed)
    if (borrowed) {
      const upTo = agent.session.length - 1
      await agent.session.flush()
      live.durableSeq = Math.max(live.durableSeq, upTo)
    }
    // A turn a crash left open was closed `interrupted`: the session was working, so its queued
    // and re-queued input continues; so does input admitted just before a crash (or a lost lease)
    // that no turn took yet. Input a user's Stop parked (an `aborted` turn) stays parked.
    // (A borrowed agent's owner did this when it opened it.)
    const { recovery } = agent
    if (!borrowed && (recovery.turn !== undefined || recovery.requeued.length > 0 || (recovery.waiting?.length ?? 0) > 0)) agent.wake()
    if (!exists) this.onChange(id, 'added')
    return live
  }

  async #build(id: string, signal: AbortSignal): Promise<Agent> {
    try {
      return await this.factory({ sessionId: id, store: this.store, signal })
    } catch (error) {
      // Opened in this process at the same moment: borrowOrOpen borrows that agent instead.
      if (BosunError.is(error, 'SESSION_LOCKED') && error.details.inProcess !== true) throw lockedElsewhere(id, error.details, error.message)
      // Created elsewhere while this agent's plugins were being set up (the id was free when looked up).
      if (BosunError.is(error, 'SESSION_EXISTS')) throw sessionExists(id)
      throw error
    }
  }

  /** Indexes the agent's log and follows it: receipts, finished steps, the inbox version, the streams' wake-ups. */
  #attach(id: string, agent: Agent, borrowed: boolean): LiveSession {
    const { live, index } = liveSession(id, agent, borrowed)
    const taps = this.#tapsOf(agent)
    taps.live = live
    taps.unsubscribe = agent.session.subscribe((event) => {
      index(event)
      if (event.type === 'agent/inbox/spliced' || event.type === 'turn/start' || event.type === 'turn/end') this.onChange(id, 'changed')
      if (event.type === 'subagent/spawned') this.#children.announce(id, (event.data as { childId: string }).childId)
      // A child settled (one the host stream no longer follows, reopened by its parent, too).
      else if (event.type === 'subagent/settled') this.onChange((event.data as { childId: string }).childId, 'changed')
      // Only signals: the writer never waits for a client.
      for (const listener of live.listeners) listener()
      // A turn whose write the store refused as stale: let go, the next request reopens it.
      const stale = staleWriterOf(event)
      if (stale) letStaleSessionGo(this, id, stale)
    })
    return live
  }

  /** Taps the agent's status, and watches for its close, once per agent: later attachments reuse them. */
  #tapsOf(agent: Agent): Taps {
    let taps = this.#taps.get(agent)
    if (taps) return taps
    const made: Taps = {}
    this.#taps.set(agent, (taps = made))
    agent.hooks.status.tap('bosun-host', () => {
      const live = made.live
      if (!live) return
      this.onChange(live.id, 'changed')
      for (const listener of live.listeners) listener()
    })
    // A borrowed agent's owner may close it at any time (a parent closes its children).
    void whenAgentClosed(agent).then(() => {
      this.#taps.delete(agent)
      if (made.live) this.#ownerClosed(made.live)
    })
    return taps
  }

  /** Stops following a session's agent (its subscription; the status tap goes quiet). */
  #detach(live: LiveSession): void {
    const taps = this.#taps.get(live.agent)
    if (taps?.live !== live) return
    taps.unsubscribe?.()
    taps.live = undefined
    taps.unsubscribe = undefined
  }

  /** The agent was closed by its owner (or is closing): its streams end, and the next request opens the session afresh. */
  #ownerClosed(live: LiveSession): void {
    if (live.closed === true) return
    live.closed = true
    if (live.idleTimer) clearTimeout(live.idleTimer)
    live.idleTimer = undefined
    this.#detach(live)
    const pending = this.#live.get(live.id)
    void pending?.then((current) => {
      if (current === live && this.#live.get(live.id) === pending) this.#live.delete(live.id)
    }, () => {})
    for (const listener of [...live.listeners]) listener()
    this.onChange(live.id, 'changed')
  }

  #touch(live: LiveSession): LiveSession {
    if (live.idleTimer) clearTimeout(live.idleTimer)
    live.idleTimer = undefined
    // A stream released after the session (or the host) closed must not arm a retire: the agent
    // is closed already, and a second close would run its hooks again.
    if (live.closed === true || live.removal !== undefined || this.#closing) return live
    live.idleTimer = setTimeout(() => this.#maybeRetire(live), this.idleMs)
    live.idleTimer.unref?.()
    return live
  }

  /** Marks a session in use until `release` (SSE streams). */
  hold(live: LiveSession): () => void {
    live.users++
    let released = false
    return () => {
      if (released) return
      released = true
      live.users--
      this.#touch(live)
    }
  }

  #maybeRetire(live: LiveSession): void {
    if (live.closed === true || this.#closing) return
    if (live.users > 0 || live.agent.status !== 'idle' || hasWorkingChildren(this.store, live.id, (agent) => this.#followed(agent))) {
      this.#touch(live)
      return
    }
    this.#live.delete(live.id)
    live.closed = true
    this.#detach(live)
    // Borrowed: the owner closes it, not the host.
    if (live.borrowed) return
    const closing = live.agent.close()
      .catch((error: unknown) => logHost(`[bosun host] closing session ${live.id} failed:`, error))
      .finally(() => {
        if (this.#retiring.get(live.id) === closing) this.#retiring.delete(live.id)
        // No longer loaded: the host stream's lists say so (detached above, no close tap tells them).
        if (!this.#closing) this.onChange(live.id, 'changed')
      })
    this.#retiring.set(live.id, closing)
  }

  /** Whether this host still follows the agent as a live session (not retired, dropped or closed). */
  #followed(agent: Agent): boolean {
    const live = this.#taps.get(agent)?.live
    return live !== undefined && live.closed !== true
  }

  /**
   * Removes session `id` with its subagent `descendants` (stored: `removalPlan`) through
   * `removeStored` (core's `removeSession`), resolving the ids removed: requests for them wait
   * meanwhile (and are answered 404 once they are gone), and those live here are stopped and
   * closed first (session-remove.ts, `stopAndRemove`).
   */
  async remove(id: string, descendants: readonly string[], removeStored: () => Promise<string[]>): Promise<string[]> {
    if (this.#closing) throw new HostError('session-locked', 'The host is shutting down: retry against the restarted host.')
    return this.#removals.run([id, ...descendants], async () => {
      refuseForeignRoot(this.store, id, await this.peek(id))
      const lives: LiveSession[] = []
      for (const each of [id, ...descendants]) {
        const live = await this.#takeForRemoval(each)
        if (live !== undefined) lives.push(live)
      }
      return stopAndRemove(lives, removeStored, (live) => this.#detach(live))
    })
  }

  /** Takes a session out of the live ones for its removal, once the opens under way settled and a retiring close finished; its streams wait for the removal. */
  async #takeForRemoval(id: string): Promise<LiveSession | undefined> {
    let taken: LiveSession | undefined
    for (let pending = this.#live.get(id); pending !== undefined; pending = this.#live.get(id)) {
      const live = await pending.catch(() => undefined)
      if (this.#live.get(id) !== pending) continue
      this.#live.delete(id)
      if (live === undefined || live.closed === true) break
      if (live.idleTimer) clearTimeout(live.idleTimer)
      live.idleTimer = undefined
      live.removal = 'pending'
      taken = live
    }
    await this.#retiring.get(id)
    return taken
  }

  /**
   * Forgets a live session whose store lease another host took (a cluster store): its writes are
   * refused now, so its streams end and its agent is closed without waiting for its turn.
   * `detached` is told what was let go once it is (the agent's close may take longer), or
   * `undefined` when the session was not live here — what the cluster's log line says.
   */
  async drop(id: string, detached: (dropped: DroppedSession | undefined) => void = () => {}): Promise<void> {
    const pending = this.#live.get(id)
    const live = pending === undefined ? undefined : (this.#live.delete(id), await pending.catch(() => undefined))
    if (!live) return detached(undefined)
    // What clients were told was accepted and may never have been written: read before the agent
    // is canceled, handed to whoever takes the session over (a cluster's mailbox, cluster.ts).
    // Without a next owner (no cluster) they are lost: the drop's log line counts them.
    let handedOver = 0
    let lost = 0
    if (!live.borrowed) {
      const unwritten = unwrittenMessages(live)
      if (this.handOver === undefined) lost = unwritten.length
      else {
        if (unwritten.length > 0) this.handOver(id, unwritten)
        handedOver = unwritten.length
      }
    }
    if (live.idleTimer) clearTimeout(live.idleTimer)
    live.closed = true
    this.#detach(live)
    const followers = [...live.listeners]
    for (const listener of followers) listener()
    detached({ handedOver, lost, streams: followers.length, running: live.agent.status === 'running', borrowed: live.borrowed === true })
    // A borrowed agent is its owner's to stop (its writes are refused the same way).
    if (live.borrowed) return
    live.agent.cancel()
    await live.agent.close().catch(() => {})
  }

  /**
   * Stops taking sessions, aborts running turns after `graceMs`, closes (flushes) every agent.
   * Concurrent calls share one close. A close that failed — a session's log could not be flushed
   * (a store outage) — rejects with the first failure once every session's close has settled, and
   * can be called again: the next call tries only the sessions that failed. `shutdown`: the host
   * is going away (`host.close()`), so a turn still running is aborted with
   * `SHUTDOWN_ABORT_REASON` and the queue behind it runs when the session is next opened; without
   * it (an ACP editor's disconnect) the queue parks, as after a user's Stop.
   */
  async close(graceMs = 0, { shutdown = false }: { shutdown?: boolean } = {}): Promise<void> {
    this.#closed ??= this.#closeAll(graceMs, shutdown).catch((error: unknown) => {
      this.#closed = undefined
      throw error
    })
    return this.#closed
  }

  async #closeAll(graceMs: number, shutdown: boolean): Promise<void> {
    this.#closing = true
    const lives = (await Promise.all([...this.#live.values()].map((p) => p.catch(() => undefined)))).filter((l): l is LiveSession => l !== undefined)
    this.#live.clear()
    await Promise.all(this.#retiring.values())
    const retries = [...this.#unclosed]
    this.#unclosed.clear()
    const closes = [
      ...lives.map((live) => closeFollowed(live, graceMs, this.#unclosed, shutdown, (closed) => this.#detach(closed))),
      ...retries.map(async ([live, failure]) => closeAgain(live, failure, this.#unclosed)),
    ]
    const failures = (await Promise.allSettled(closes)).flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []))
    if (failures.length === 0) return
    for (const failure of failures.slice(1)) logHost(`[bosun host] closing a session failed:`, failure)
    throw failures[0]
  }
}
