import { randomUUID } from 'node:crypto'
import { createUserMessage, findLiveAgent, whenAgentClosed, type Agent, type PluginContext, type ToolContext, type ToolResultObject } from '@bosun/core'
import { closeChild, openChildAgent, type Child } from './child-agent.js'
import { admitTask, delegationOf, endedHow, hasNoOwnEvents, parentSource, peekSession, type ChildSpec } from './child-session.js'
import { SubagentError, SubagentErrorCodes } from './errors.js'
import type { Settlement } from './fold.js'
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LIVE_CHILDREN, type Options } from './options.js'
import { foldParent, noteParentEvent, type ParentRecord } from './parent-record.js'
import { recoverChildren } from './recovery.js'
import { SettlementDelivery } from './settlement.js'
import './events.js'

export interface SpawnArgs {
  task: string
  agent?: string
  mode?: 'foreground' | 'background'
  context?: 'fresh' | 'fork'
}

/** One agent's children: spawning, the tools' work, cancel and close (recovery and settlement have files of their own). */
export class Delegator {
  readonly #ctx: PluginContext
  readonly #options: Options
  readonly #resume: boolean
  readonly #depth: number
  readonly #record: ParentRecord
  /** Children opened (spawned, recovered, or reopened for a send), by id; a settled child is opened only when needed. */
  readonly #children = new Map<string, Promise<Child>>()
  readonly #opened = new Map<string, Child>()
  /** Children spawned or woken and not settled since: counted against `maxLiveChildren`. */
  readonly #live = new Set<string>()
  readonly #delivery: SettlementDelivery
  /** Spawns between their `subagent/spawned` and their task's admission: {@link openFor} waits for them. */
  readonly #spawning = new Map<string, Promise<void>>()
  #closing = false
  /**
   * Aborts the children's opens in flight (their `createAgent({ signal })`) when this agent
   * closes, or when its own build is given up (`ctx.signal`: recovery opens children in setup) —
   * a child whose setup never settles must not hold the parent's close, or the child's lock, forever.
   */
  readonly #opens = new AbortController()

  constructor(ctx: PluginContext, options: Options) {
    this.#ctx = ctx
    if (ctx.signal.aborted) this.#opens.abort()
    else ctx.signal.addEventListener('abort', () => this.#opens.abort(), { once: true })
    this.#options = options
    this.#resume = options.onRecover === 'resume'
    this.#depth = ctx.session.header.delegation?.depth ?? 0
    this.#record = foldParent(ctx.session.events, ctx.session.header.seedLength ?? 0)
    this.#delivery = new SettlementDelivery(ctx, this.#record, this.#live)
    ctx.hooks.event.tap(ctx.name, (event) => noteParentEvent(this.#record, event))
  }

  get depth(): number {
    return this.#depth
  }

  /** On reopen (in setup): see {@link recoverChildren}. */
  recover(): Promise<void> {
    const open = (childId: string, mode: 'foreground' | 'background', profile: string | undefined, create?: ChildSpec) => this.#open(childId, mode, profile, create)
    return recoverChildren({ ctx: this.#ctx, record: this.#record, resume: this.#resume, delivery: this.#delivery, live: this.#live, open })
  }

  /** The agent is built (`onReady`): settlements can wake it from now on. */
  ready(): void {
    this.#delivery.ready()
  }

  async spawn(args: SpawnArgs, tool: ToolContext): Promise<ToolResultObject> {
    const mode = args.mode ?? 'foreground'
    const depth = this.#depth + 1
    const maxDepth = this.#options.maxDepth ?? DEFAULT_MAX_DEPTH
    if (depth > maxDepth) {
      throw new SubagentError(SubagentErrorCodes.DEPTH_EXCEEDED, `a child here would have depth ${depth}, over maxDepth ${maxDepth}. Do the task yourself, or report back to your parent.`)
    }
    if (args.agent !== undefined && !Object.hasOwn(this.#options.agents ?? {}, args.agent)) {
      const names = Object.keys(this.#options.agents ?? {})
      throw new SubagentError(SubagentErrorCodes.UNKNOWN_PROFILE, `no agent profile "${args.agent}". ${names.length ? `Use one of: ${names.join(', ')}` : 'Omit "agent" to spawn a child like yourself'}.`)
    }
    // Checked and reserved before any await, so that parallel spawns are refused in call order.
    this.#reserve()
    const childId = randomUUID()
    this.#live.add(childId)
    // Until the task is admitted, a host asking for this child waits (see openFor): it is recorded
    // as spawned before its session exists, and a user's message must not come before the task.
    let admitted!: () => void
    this.#spawning.set(childId, new Promise<void>((resolve) => (admitted = resolve)))
    const settle = () => {
      this.#spawning.delete(childId)
      admitted()
    }
    try {
      return await this.#spawn(childId, args, mode, depth, tool, settle)
    } finally {
      settle()
    }
  }

  async #spawn(childId: string, args: SpawnArgs, mode: 'foreground' | 'background', depth: number, tool: ToolContext, admitted: () => void): Promise<ToolResultObject> {
    const delegation = delegationOf(this.#ctx, tool.callId, depth, mode)
    // Recorded, durably, before the child exists: after a crash, recovery finds every child this
    // spawn may have made and adopts it (makes what is missing, admits the task), so none is orphaned.
    this.#ctx.session.append('subagent/spawned', { childId, callId: tool.callId, ...(args.agent === undefined ? {} : { agent: args.agent }), mode, depth })
    let child: Child | undefined
    try {
      await this.#ctx.session.flush()
      child = await this.#open(childId, mode, args.agent, { childId, delegation, ...(args.context === undefined ? {} : { context: args.context }) })
      child.awaited = mode === 'foreground'
      await admitTask(this.#ctx, child.agent, args.task, tool.callId)
    } catch (error) {
      this.#live.delete(childId)
      // Settled as an error, so that recovery does not adopt a child the model was told failed.
      this.#ctx.session.append('subagent/settled', { childId, epoch: 1, reason: 'error', answer: '' })
      if (child) await closeChild(child).catch(() => {})
      throw error
    }
    admitted()
    child.agent.wake()
    if (mode === 'background') {
      return { content: `Started background agent ${childId}. Its answer will arrive as a message when it finishes; use send_to_agent to give it more work.` }
    }
    return this.#awaitForeground(child, tool.signal)
  }

  async send(childId: string, message: string, tool: ToolContext): Promise<string> {
    const spawned = this.#spawned(childId)
    if (spawned.mode === 'foreground') {
      throw new SubagentError(SubagentErrorCodes.ONE_SHOT, `agent ${childId} was a foreground (one-shot) child and is closed. Spawn a background agent to continue a conversation.`)
    }
    if (await this.#neverStarted(childId)) {
      throw new SubagentError(SubagentErrorCodes.NOT_STARTED, `agent ${childId} could not be started, so it takes no messages. Spawn a new agent.`)
    }
    if (!this.#live.has(childId)) this.#reserve()
    // A child settled before a reopen is opened only now, when it has work again.
    const open = () => this.#children.get(childId) ?? this.#open(childId, spawned.mode, spawned.agent)
    let child = await open()
    if (child.borrowed && !child.closing && findLiveAgent(this.#ctx.store, childId) !== child.agent) {
      // Its owner (the host) is closing it: once it is closed (and forgotten here), open it here.
      await whenAgentClosed(child.agent)
      child = await open()
    }
    if (child.closing) throw new SubagentError(SubagentErrorCodes.ONE_SHOT, `agent ${childId} is closed.`)
    const sent = child.agent.followup(createUserMessage(message, { source: parentSource(this.#ctx, tool.callId) }))
    this.#live.add(childId)
    this.#ctx.session.append('subagent/sent', { childId, callId: tool.callId, messageId: sent.id })
    // Durable from admission: the model is told "sent" only once the child's store has it.
    await child.agent.session.flush()
    return `Sent to ${childId}. Its answer will arrive as a message when it settles again.`
  }

  interrupt(childId: string): string {
    this.#spawned(childId)
    const child = this.#opened.get(childId)
    // Not opened here, it may still run in this process: the host opened it for a user.
    const agent = child && !child.closing ? child.agent : findLiveAgent(this.#ctx.store, childId)
    if (!agent) return `Agent ${childId} is not running: nothing to interrupt.`
    // An abort stops only a running turn: told "interrupted", the model would wait for a settlement that never comes.
    if (agent.status !== 'running') return `Agent ${childId} is not running a turn (it is ${agent.status}): nothing to interrupt, and no settlement comes of this.`
    agent.abort('interrupted by parent')
    return `Interrupted ${childId}: its turn stops; queued input stays queued.`
  }

  list(): string {
    if (this.#record.spawned.size === 0) return 'No child agents.'
    return [...this.#record.spawned].map(([id, spawned]) => {
      const child = this.#opened.get(id)
      // Not open: a one-shot child, or one that could not start, is closed for good; a continuable one waits, settled, to be sent to.
      const dead = spawned.mode === 'foreground' || this.#record.settled.get(id)?.get(1)?.reason === 'error'
      const status = child ? (child.closing ? 'closed' : child.agent.status) : dead ? 'closed' : 'idle'
      const epochs = this.#record.settled.get(id)?.size ?? 0
      return JSON.stringify({ childId: id, agent: spawned.agent ?? null, mode: spawned.mode, status, live: this.#live.has(id), settlements: epochs })
    }).join('\n')
  }

  /**
   * The opener this agent offers the process (`offerChildOpener`): a host a user asks about one of
   * its children gets the child as this agent builds it (its profile's system prompt, model and
   * tools), kept here, so that each settlement of what the user started reaches this agent too.
   * `undefined` for a session that is not its child, or one that never started.
   */
  async openFor(childId: string): Promise<Agent | undefined> {
    await this.#spawning.get(childId)
    const spawned = this.#record.spawned.get(childId)
    if (!spawned || this.#closing) return undefined
    if (await this.#neverStarted(childId)) return undefined
    let built = !this.#children.has(childId)
    let child = await this.#open(childId, spawned.mode, spawned.agent)
    if (child.closing) {
      // A one-shot child closed after its answer (or a borrowed one its owner closed): open it anew.
      await (child.borrowed ? whenAgentClosed(child.agent) : child.closing.catch(() => {}))
      if (this.#opened.get(childId) === child) {
        this.#opened.delete(childId)
        this.#children.delete(childId)
      }
      built = !this.#children.has(childId)
      child = await this.#open(childId, spawned.mode, spawned.agent)
      if (child.closing) return undefined
    }
    // Opened here for the host, which does not wake a borrowed agent: woken as the host wakes a
    // session it resumes — a turn a crash left open, input a wake was owed — so a user's turn the
    // crash cut continues (and settles here). A child already open was this agent's to wake.
    const { recovery } = child.agent
    if (built && !child.borrowed && (recovery.turn !== undefined || recovery.requeued.length > 0 || (recovery.waiting?.length ?? 0) > 0)) child.agent.wake()
    return child.agent
  }

  /** The parent's `cancel()`: background children are canceled too (which cascades to theirs). */
  cancelAll(): void {
    for (const child of this.#opened.values()) {
      if (child.closing) continue
      // Its settlement is still delivered (exactly once), but parked: a canceled parent does not wake for it.
      if (!child.awaited) child.quiet = true
      child.agent.cancel()
    }
  }

  /**
   * The parent's `stopAfterTurn()` (a host going away within a grace): each child this agent opened
   * finishes its running turn and starts no other (each stops its own children the same way), so a
   * background child's work is not cut off while its parent is idle. Resolves when they are all
   * idle. A borrowed child is the host's own session: the host stops it.
   */
  stopAllAfterTurn(): Promise<void> {
    const children = [...this.#opened.values()].filter((child) => !child.borrowed && !child.closing)
    return Promise.all(children.map((child) => child.agent.stopAfterTurn())).then(() => {})
  }

  /** Closing the parent closes its children first (each closes its own first). */
  async closeAll(): Promise<void> {
    this.#closing = true
    this.#delivery.close()
    this.#opens.abort()
    // Children still being opened are closed once they are.
    for (const opening of this.#children.values()) await opening.then(closeChild).catch(() => {})
  }

  #reserve(): void {
    const max = this.#options.maxLiveChildren ?? DEFAULT_MAX_LIVE_CHILDREN
    if (this.#live.size >= max) {
      const live = this.#live.size === 1 ? '1 child agent is already live' : `${this.#live.size} child agents are already live`
      const wait = this.#live.size === 1 ? 'Wait for it to settle' : 'Wait for one to settle'
      throw new SubagentError(SubagentErrorCodes.TOO_MANY_LIVE, `${live} (maxLiveChildren ${max}). ${wait}, or do this yourself.`)
    }
  }

  /**
   * Whether the child's spawn failed (settled as an error before its task reached it, or recovery
   * could not make it): it takes no messages. A first settlement `error` says only that the first
   * epoch failed — a child whose first turn ended in a model error did start — so its session
   * tells: missing, or nothing of its own in it. Read only in that case, and only while the child
   * is not open in this process.
   */
  async #neverStarted(childId: string): Promise<boolean> {
    if (this.#opened.has(childId) || this.#record.settled.get(childId)?.get(1)?.reason !== 'error') return false
    // Running in this process (the host opened it): started. (Peeking would open it a second time on a store without `read`.)
    if (findLiveAgent(this.#ctx.store, childId)) return false
    const stored = await peekSession(this.#ctx, childId)
    return stored === undefined || hasNoOwnEvents(stored)
  }

  #spawned(childId: string) {
    const spawned = this.#record.spawned.get(childId)
    if (!spawned) throw new SubagentError(SubagentErrorCodes.UNKNOWN_CHILD, `"${childId}" is not a child of this agent. Use list_agents to see your children.`)
    return spawned
  }

  /** Opens a child once (concurrent callers share the opening); with `create`, its session is new (made once its setups passed). */
  #open(childId: string, mode: 'foreground' | 'background', profile: string | undefined, create?: ChildSpec): Promise<Child> {
    let opening = this.#children.get(childId)
    if (!opening) {
      opening = this.#build(childId, mode, profile, create)
      this.#children.set(childId, opening)
      opening.catch(() => this.#children.delete(childId))
    }
    return opening
  }

  async #build(childId: string, mode: 'foreground' | 'background', profile: string | undefined, create: ChildSpec | undefined): Promise<Child> {
    const { agent, fold, borrowed } = await openChildAgent(this.#ctx, this.#options, childId, profile, this.#resume, this.#opens.signal, create)
    const child: Child = { id: childId, agent, mode, fold, borrowed, awaited: false, quiet: false, waiters: new Set(), ...(profile === undefined ? {} : { profile }) }
    this.#opened.set(childId, child)
    agent.hooks.status.tap(this.#ctx.name, (status) => {
      // A borrowed child this agent let go keeps its taps (they cannot be removed): quiet now.
      if (status !== 'idle' || (child.borrowed && child.closing)) return
      for (const waiter of [...child.waiters]) waiter()
      if (!child.awaited) this.#delivery.settleFrom(child)
    })
    if (borrowed) {
      // Its owner (the host) may close it when idle: forget it then, so that the next send opens
      // it again (and folds what it did meanwhile: a settlement already delivered is not repeated).
      void whenAgentClosed(agent).then(() => {
        if (this.#opened.get(childId) !== child) return
        this.#opened.delete(childId)
        this.#children.delete(childId)
        child.closing ??= Promise.resolve()
        for (const waiter of [...child.waiters]) waiter()
      })
    }
    if (this.#closing) await closeChild(child)
    return child
  }

  async #awaitForeground(child: Child, signal: AbortSignal): Promise<ToolResultObject> {
    const onAbort = () => child.agent.cancel()
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort() // aborted while the child was being created
    try {
      let settlement: Settlement | undefined
      while (!(settlement = child.fold.settlements[0])) {
        await new Promise<void>((resolve) => {
          child.waiters.add(resolve)
          if (child.fold.settlements[0] || (signal.aborted && child.agent.status === 'idle')) resolve()
        }).finally(() => child.waiters.clear())
        if (signal.aborted && child.agent.status === 'idle' && !child.fold.settlements[0]) break
      }
      const reason = settlement?.reason.kind ?? 'aborted'
      const answer = settlement?.answer ?? ''
      // Before the tool result, in the same log: a crash between the two leaves the answer here, and recovery delivers it.
      this.#ctx.session.append('subagent/settled', { childId: child.id, epoch: 1, reason, answer })
      this.#live.delete(child.id)
      if (signal.aborted || reason === 'aborted') {
        // Aborted with this step, or on its own (a user stopped it through the host).
        const how = signal.aborted ? 'was aborted with your step' : 'was aborted'
        return { content: `Agent ${child.id} ${how}.${answer ? ` Partial answer:\n${answer}` : ''}`, isError: true }
      }
      if (reason !== 'completed') {
        return { content: `Agent ${child.id} did not complete (end reason: ${endedHow(settlement?.reason ?? reason)}).${answer ? ` Partial answer:\n${answer}` : ''}`, isError: true }
      }
      return { content: answer || `Agent ${child.id} finished without an answer.` }
    } finally {
      signal.removeEventListener('abort', onAbort)
      await closeChild(child).catch(() => {})
    }
  }
}
