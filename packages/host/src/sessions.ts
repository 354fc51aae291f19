import { assertSessionId, BosunError, type Agent, type SessionEvent, type SessionHeader, type Store } from '@bosun/core'
import { HostError } from './errors.js'

/** Builds (creating or resuming) the agent of one session on the host's store. */
export type AgentFactory = (options: { sessionId: string; store: Store }) => Promise<Agent>

export interface LiveSession {
  id: string
  agent: Agent
  /** Open SSE streams and in-flight requests: a session in use is never closed for idleness. */
  users: number
  /** Highest seq known durable (flushed or loaded from the store). */
  durableSeq: number
  /** Message ids admitted by this session (from the log), for idempotent receipts. */
  admitted: Map<string, number>
  /** Steps (`turn:step`) whose `assistant/message` is in the log: their chunks are history. */
  finishedSteps: Set<string>
  /** The inbox version: the seq of the latest `agent/inbox/spliced` (-1 before any), for `If-Match`. */
  inboxSeq: number
  /** Wakes SSE subscribers waiting for new events. */
  listeners: Set<() => void>
  idleTimer?: ReturnType<typeof setTimeout>
  /** Set when the host closes the session: its streams end. */
  closed?: boolean
}

export function checkSessionId(id: string): void {
  try {
    assertSessionId(id)
  } catch (error) {
    throw new HostError('invalid-request', error instanceof Error ? error.message : String(error), { path: '/id' })
  }
}

/** One host, many sessions: agents created on first use and closed after an idle period. */
export class SessionManager {
  readonly #live = new Map<string, Promise<LiveSession>>()
  /** Sessions retired for idleness whose agents are still closing. */
  readonly #retiring = new Map<string, Promise<void>>()
  #closing = false
  #closed: Promise<void> | undefined

  constructor(
    readonly store: Store,
    readonly factory: AgentFactory,
    readonly idleMs: number,
    /** Told when a live session's status or queues change, and when a session is created. */
    readonly onChange: (id: string, kind: 'added' | 'changed') => void = () => {},
  ) {}

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
    return this.#stored(id)
  }

  async #stored(id: string): Promise<boolean> {
    if (this.store.read) return (await this.store.read(id)) !== undefined
    return (await this.store.list()).some((s) => s.id === id)
  }

  /** Reads a session's header and events without resuming it (the live log when it runs). */
  async read(id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[]; live?: LiveSession } | undefined> {
    const live = await this.peek(id)
    if (live) return { header: live.agent.session.header, events: live.agent.session.events, live }
    if (this.store.read) return this.store.read(id)
    const opened = await this.store.open(id)
    if (!opened) return undefined
    await opened.writer.close()
    return { header: opened.header, events: opened.events }
  }

  /**
   * The live session, resumed from the store on first use; `session-not-found` if the store has
   * none. `create: true` makes a new one (`session-exists` if the id is taken); `'if-missing'`
   * resumes or creates, decided here so that two first requests for one id share one open.
   */
  async use(id: string, options: { create?: boolean | 'if-missing' } = {}): Promise<LiveSession> {
    checkSessionId(id)
    if (this.#closing) throw new HostError('session-locked', 'The host is shutting down: retry against the restarted host.')
    const existing = this.#live.get(id)
    if (existing && options.create === true) throw new HostError('session-exists', `Session "${id}" already exists: choose another id, or omit it for a new one.`, { id })
    if (existing) return this.#touch(await existing)
    const pending = this.#open(id, options.create ?? false)
    this.#live.set(id, pending)
    try {
      return this.#touch(await pending)
    } catch (error) {
      if (this.#live.get(id) === pending) this.#live.delete(id)
      throw error
    }
  }

  async #open(id: string, create: boolean | 'if-missing'): Promise<LiveSession> {
    // A retired agent may still be closing (flushing, releasing its lock): a second agent on the
    // same log must wait for it, or it finds the session locked.
    const retiring = this.#retiring.get(id)
    if (retiring !== undefined) await retiring
    const exists = await this.#stored(id)
    if (create === true && exists) throw new HostError('session-exists', `Session "${id}" already exists: choose another id, or omit it for a new one.`, { id })
    if (!create && !exists) throw new HostError('session-not-found', `No session "${id}" in this host's store: create it with POST /v1/sessions.`, { id })
    let agent: Agent
    try {
      agent = await this.factory({ sessionId: id, store: this.store })
    } catch (error) {
      if (error instanceof BosunError && error.code === 'SESSION_LOCKED') {
        throw new HostError('session-locked', `Session "${id}" is open in another process: ${error.message}`, { id, ...(typeof error.details === 'object' && error.details !== null ? error.details : {}) })
      }
      throw error
    }
    const events = agent.session.events
    const admitted = new Map<string, number>()
    const finishedSteps = new Set<string>()
    const live: LiveSession = { id, agent, users: 0, durableSeq: events.length - 1, inboxSeq: -1, admitted, finishedSteps, listeners: new Set() }
    const seedLength = agent.session.header.seedLength ?? 0
    const index = (event: SessionEvent): void => {
      if (event.type === 'assistant/message') {
        const { turn, step } = event.data as { turn: number; step: number }
        finishedSteps.add(`${turn}:${step}`)
      }
      if (event.type === 'agent/inbox/spliced' && event.seq >= seedLength) {
        live.inboxSeq = event.seq
        for (const m of (event.data as { inserted: { id: string }[] }).inserted) if (!admitted.has(m.id)) admitted.set(m.id, event.seq)
      }
    }
    for (const event of events) index(event)
    agent.session.subscribe((event) => {
      index(event)
      if (event.type === 'agent/inbox/spliced' || event.type === 'turn/start' || event.type === 'turn/end') this.onChange(id, 'changed')
      // Only signals: the writer never waits for a client.
      for (const listener of live.listeners) listener()
    })
    agent.hooks.status.tap('bosun-host', () => {
      this.onChange(id, 'changed')
      for (const listener of live.listeners) listener()
    })
    // A turn a crash left open was closed `interrupted`: the session was working, so its queued
    // and re-queued input continues. Input a user's Stop parked (an `aborted` turn) stays parked.
    if (agent.recovery.turn !== undefined || agent.recovery.requeued.length > 0) agent.wake()
    if (!exists) this.onChange(id, 'added')
    return live
  }

  #touch(live: LiveSession): LiveSession {
    if (live.idleTimer) clearTimeout(live.idleTimer)
    live.idleTimer = undefined
    // A stream released after the session (or the host) closed must not arm a retire: the agent
    // is closed already, and a second close would run its hooks again.
    if (live.closed === true || this.#closing) return live
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
    if (live.users > 0 || live.agent.status !== 'idle') {
      this.#touch(live)
      return
    }
    this.#live.delete(live.id)
    live.closed = true
    const closing = live.agent.close()
      .catch((error: unknown) => console.error(`[bosun host] closing session ${live.id} failed:`, error))
      .finally(() => {
        if (this.#retiring.get(live.id) === closing) this.#retiring.delete(live.id)
      })
    this.#retiring.set(live.id, closing)
  }

  /**
   * Forgets a live session whose store lease another host took (a cluster store): its writes are
   * refused now, so its streams end and its agent is closed without waiting for its turn.
   */
  async drop(id: string): Promise<void> {
    const pending = this.#live.get(id)
    if (pending === undefined) return
    this.#live.delete(id)
    const live = await pending.catch(() => undefined)
    if (!live) return
    if (live.idleTimer) clearTimeout(live.idleTimer)
    live.closed = true
    for (const listener of [...live.listeners]) listener()
    live.agent.cancel()
    await live.agent.close().catch(() => {})
  }

  /** Stops taking sessions, aborts running turns after `graceMs`, closes (flushes) every agent. */
  async close(graceMs = 0): Promise<void> {
    this.#closed ??= this.#closeAll(graceMs)
    return this.#closed
  }

  async #closeAll(graceMs: number): Promise<void> {
    this.#closing = true
    const lives = (await Promise.all([...this.#live.values()].map((p) => p.catch(() => undefined)))).filter((l): l is LiveSession => l !== undefined)
    this.#live.clear()
    await Promise.all(this.#retiring.values())
    await Promise.all(lives.map(async (live) => {
      if (live.idleTimer) clearTimeout(live.idleTimer)
      live.idleTimer = undefined
      if (graceMs > 0 && live.agent.status !== 'idle') {
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([live.agent.whenIdle(), new Promise((r) => { timer = setTimeout(r, graceMs) })])
        clearTimeout(timer)
      }
      await live.agent.close()
      live.closed = true
      for (const listener of [...live.listeners]) listener()
    }))
  }
}
