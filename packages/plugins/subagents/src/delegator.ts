import { randomUUID } from 'node:crypto'
import {
  BosunError, createAgent, createUserMessage, ErrorCodes,
  type Delegation, type PluginContext, type Tool, type ToolContext, type ToolResultObject, type UserMessage,
} from '@bosun/core'
import { createChildSession, hasNoOwnEvents, peekSession, settleText } from './child-session.js'
import { SubagentError, SubagentErrorCodes } from './errors.js'
import { foldChild, foldParent, noteParentEvent, type ChildState, type ParentRecord, type Settlement, type SpawnRecord } from './fold.js'
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_LIVE_CHILDREN, type Options } from './options.js'
import './events.js'

type Agent = Awaited<ReturnType<typeof createAgent>>

interface Child {
  id: string
  agent: Agent
  mode: 'foreground' | 'background'
  profile?: string
  /** A foreground tool call is waiting for this child: it delivers the answer, not a message. */
  awaited: boolean
  /** Canceled with the parent: its next settlement is queued in the parent without waking it. */
  quiet: boolean
  closed: boolean
  waiters: Set<() => void>
}

export interface SpawnArgs {
  task: string
  agent?: string
  mode?: 'foreground' | 'background'
  context?: 'fresh' | 'fork'
}

/** One agent's children: spawning, settling into this agent, recovery, cancel and close. */
export class Delegator {
  readonly #ctx: PluginContext
  readonly #options: Options
  readonly #resume: boolean
  readonly #depth: number
  readonly #record: ParentRecord
  readonly #children = new Map<string, Child>()
  /** Children spawned or woken and not settled since: counted against `maxLiveChildren`. */
  readonly #live = new Set<string>()
  #closing = false
  /** During setup the agent cannot run a turn yet: settlements of children woken by recovery wait here until it can. */
  #deferred: Child[] | undefined = []

  constructor(ctx: PluginContext, options: Options) {
    this.#ctx = ctx
    this.#options = options
    this.#resume = options.onRecover === 'resume'
    this.#depth = ctx.session.header.delegation?.depth ?? 0
    this.#record = foldParent(ctx.session.events, ctx.session.header.seedLength ?? 0)
    ctx.hooks.event.tap(ctx.name, (event) => noteParentEvent(this.#record, event))
  }

  get depth(): number {
    return this.#depth
  }

  /** On reopen: opens every child not known settled for good, settles what its log shows settled, wakes what it must. */
  async recover(): Promise<void> {
    try {
      await this.#recover()
    } finally {
      // createAgent() finishes after this setup returns; settlements from then on are delivered as usual.
      setImmediate(() => {
        const deferred = this.#deferred ?? []
        this.#deferred = undefined
        for (const child of new Set(deferred)) if (!this.#closing) this.#settleFrom(child)
      })
    }
  }

  async #recover(): Promise<void> {
    for (const [childId, spawned] of this.#record.spawned) {
      const settled = this.#record.settled.get(childId)
      if (spawned.mode === 'foreground' && settled?.has(1)) {
        // Settled, but the crash cut the tool result that carried the answer: it comes as a message instead.
        if (spawned.result === 'lost') await this.#redeliver(childId, spawned)
        continue
      }
      const stored = await peekSession(this.#ctx, childId)
      if (!stored || hasNoOwnEvents(stored)) {
        // The spawn is recorded but the crash fell before the task reached the child: adopt it (make
        // what is missing, admit the task) — unless the spawn failed and was settled as an error.
        if (!settled?.size) await this.#adopt(childId, spawned, stored === undefined).catch(() => this.#unadoptable(childId, spawned))
        continue
      }
      const child = await this.#open(childId, spawned.mode, spawned.agent)
      const state = this.#state(child)
      // What the logs show settled is queued without a wake: resuming starts no turn by itself.
      for (const settlement of state.settlements) this.#deliver(child, settlement, true)
      if (!state.settledAtEnd) {
        this.#live.add(childId)
        if (state.pending) child.agent.wake()
      } else if (spawned.mode === 'foreground') {
        await this.#closeChild(child)
      }
    }
  }

  /** Recovery of a child recorded as spawned whose session or task the crash left unmade: it runs its task now. */
  async #adopt(childId: string, spawned: SpawnRecord, missing: boolean): Promise<void> {
    // Cannot be missing in logs this plugin wrote (the call is logged before it runs): refuse rather than guess a task.
    if (spawned.task === undefined) throw new Error(`no task recorded for child ${childId}`)
    const delegation = this.#delegation(spawned.callId, spawned.depth, spawned.mode)
    if (missing) {
      const context = spawned.context ?? 'fresh'
      await createChildSession(this.#ctx, { childId, delegation, context, ...(context === 'fork' ? { afterTurn: Math.max(0, spawned.turn - 1) } : {}) })
    }
    const child = await this.#open(childId, spawned.mode, spawned.agent)
    await this.#admit(child, spawned.task, delegation)
    this.#live.add(childId)
    child.agent.wake()
  }

  /**
   * A child recovery could not adopt (its session cannot be made): settled as an error, with a
   * message, rather than failing the parent's reopen — a parent that cannot open is worse.
   */
  #unadoptable(childId: string, spawned: SpawnRecord): void {
    const messageId = this.#post(childId, 1, settleText(childId, spawned.agent, 1, 'error', 'It could not be started after a crash.'), true)
    this.#ctx.session.append('subagent/settled', { childId, epoch: 1, ...(messageId === undefined ? {} : { messageId }), reason: 'error', answer: '' })
  }

  /** A foreground answer whose tool result a crash cut: delivered as the message `settle:<childId>:1`, parked. */
  async #redeliver(childId: string, spawned: SpawnRecord): Promise<void> {
    const data = this.#record.settled.get(childId)!.get(1)!
    let { reason, answer } = data
    if (reason === undefined || answer === undefined) {
      // A log written before `subagent/settled` held the answer: fold it from the child's own log.
      const stored = await peekSession(this.#ctx, childId)
      const first = stored && foldChild(stored.events, stored.header.seedLength ?? 0, this.#resume).settlements[0]
      reason = first?.reason.kind ?? 'interrupted'
      answer = first?.answer ?? ''
    }
    this.#post(childId, 1, settleText(childId, spawned.agent, 1, reason, answer), true)
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
    const delegation = this.#delegation(tool.callId, depth, mode)
    // Recorded, durably, before the child exists: after a crash, recovery finds every child this
    // spawn may have made and adopts it (makes what is missing, admits the task), so none is orphaned.
    this.#ctx.session.append('subagent/spawned', { childId, callId: tool.callId, ...(args.agent === undefined ? {} : { agent: args.agent }), mode, depth })
    let child: Child | undefined
    try {
      await this.#ctx.session.flush()
      await createChildSession(this.#ctx, { childId, delegation, ...(args.context === undefined ? {} : { context: args.context }) })
      child = await this.#open(childId, mode, args.agent)
      child.awaited = mode === 'foreground'
      await this.#admit(child, args.task, delegation)
    } catch (error) {
      this.#live.delete(childId)
      // Settled as an error, so that recovery does not adopt a child the model was told failed.
      this.#ctx.session.append('subagent/settled', { childId, epoch: 1, reason: 'error', answer: '' })
      if (child) await this.#closeChild(child).catch(() => {})
      throw error
    }
    child.agent.wake()
    if (mode === 'background') {
      return { content: `Started background agent ${childId}. Its answer will arrive as a message when it finishes; use send_to_agent to give it more work.` }
    }
    return this.#awaitForeground(child, tool.signal)
  }

  async send(childId: string, message: string, tool: ToolContext): Promise<string> {
    const child = this.#own(childId)
    if (child.mode === 'foreground') {
      throw new SubagentError(SubagentErrorCodes.ONE_SHOT, `agent ${childId} was a foreground (one-shot) child and is closed. Spawn a background agent to continue a conversation.`)
    }
    if (!this.#live.has(childId)) this.#reserve()
    const sent = child.agent.followup(createUserMessage(message, { source: this.#source(tool.callId) }))
    this.#live.add(childId)
    this.#ctx.session.append('subagent/sent', { childId, callId: tool.callId, messageId: sent.id })
    // Durable from admission: the model is told "sent" only once the child's store has it.
    await child.agent.session.flush()
    return `Sent to ${childId}. Its answer will arrive as a message when it settles again.`
  }

  interrupt(childId: string): string {
    const child = this.#own(childId)
    child.agent.abort('interrupted by parent')
    return `Interrupted ${childId}: its turn stops; queued input stays queued.`
  }

  list(): string {
    if (this.#record.spawned.size === 0) return 'No child agents.'
    return [...this.#record.spawned].map(([id, spawned]) => {
      const child = this.#children.get(id)
      const status = !child || child.closed ? 'closed' : child.agent.status
      const epochs = this.#record.settled.get(id)?.size ?? 0
      return JSON.stringify({ childId: id, agent: spawned.agent ?? null, mode: spawned.mode, status, live: this.#live.has(id), settlements: epochs })
    }).join('\n')
  }

  /** The parent's `cancel()`: background children are canceled too (which cascades to theirs). */
  cancelAll(): void {
    for (const child of this.#children.values()) {
      if (child.closed) continue
      // Its settlement is still delivered (exactly once), but parked: a canceled parent does not wake for it.
      if (!child.awaited) child.quiet = true
      child.agent.cancel()
    }
  }

  /** Closing the parent closes its children first (each closes its own first). */
  async closeAll(): Promise<void> {
    this.#closing = true
    for (const child of this.#children.values()) await this.#closeChild(child).catch(() => {})
  }

  #delegation(callId: string, depth: number, mode: 'foreground' | 'background'): Delegation {
    return { parentSessionId: this.#ctx.session.header.id, callId, depth, mode: mode === 'foreground' ? 'one-shot' : 'continuable' }
  }

  #source(callId: string): UserMessage['source'] {
    return { kind: 'parent', parentSessionId: this.#ctx.session.header.id, callId }
  }

  /** The task, verbatim, as the child's first follow-up: durable in the child before it is woken. */
  async #admit(child: Child, task: string, delegation: Delegation): Promise<void> {
    const message = createUserMessage(task, { source: this.#source(delegation.callId) })
    child.agent.inbox.splice('next-turn', child.agent.inbox.nextTurn.length, 0, [message])
    await child.agent.session.flush()
  }

  #reserve(): void {
    const max = this.#options.maxLiveChildren ?? DEFAULT_MAX_LIVE_CHILDREN
    if (this.#live.size >= max) {
      throw new SubagentError(SubagentErrorCodes.TOO_MANY_LIVE, `${this.#live.size} child agents are already live (maxLiveChildren ${max}). Wait for one to settle, or do this yourself.`)
    }
  }

  #own(childId: string): Child {
    const child = this.#children.get(childId)
    if (!child || !this.#record.spawned.has(childId)) {
      throw new SubagentError(SubagentErrorCodes.UNKNOWN_CHILD, `"${childId}" is not a child of this agent. Use list_agents to see your children.`)
    }
    if (child.closed) throw new SubagentError(SubagentErrorCodes.ONE_SHOT, `agent ${childId} is closed.`)
    return child
  }

  async #open(childId: string, mode: 'foreground' | 'background', profileName: string | undefined): Promise<Child> {
    const { config } = this.#ctx
    const profile = profileName === undefined ? undefined : this.#options.agents?.[profileName]
    const model = profile?.model ? await this.#ctx.createModel(profile.model) : config.model
    const tools = profile?.tools ? config.tools.filter((tool: Tool) => profile.tools!.includes(tool.name)) : config.tools
    const agent = await createAgent({
      model, store: this.#ctx.store, sessionId: childId, system: profile?.system ?? config.system, tools,
      plugins: config.plugins, maxParallelTools: config.maxParallelTools, now: this.#ctx.now,
    })
    const child: Child = { id: childId, agent, mode, awaited: false, quiet: false, closed: false, waiters: new Set(), ...(profileName === undefined ? {} : { profile: profileName }) }
    this.#children.set(childId, child)
    agent.hooks.status.tap(this.#ctx.name, (status) => {
      if (status !== 'idle') return
      for (const waiter of [...child.waiters]) waiter()
      if (!child.awaited && !this.#closing) this.#settleFrom(child)
    })
    return child
  }

  #state(child: Child): ChildState {
    return foldChild(child.agent.session.events, child.agent.session.header.seedLength ?? 0, this.#resume)
  }

  #settleFrom(child: Child): void {
    if (this.#deferred) return void this.#deferred.push(child)
    const state = this.#state(child)
    for (const settlement of state.settlements) this.#deliver(child, settlement, child.quiet)
  }

  /** One durable message per settled epoch: a steer while this agent runs, else a follow-up; a repeat is a duplicate id, i.e. already settled. */
  #deliver(child: Child, settlement: Settlement, park: boolean): void {
    if (this.#record.settled.get(child.id)?.has(settlement.epoch)) return
    const { epoch, reason, answer } = settlement
    const messageId = this.#post(child.id, epoch, settleText(child.id, child.profile, epoch, reason.kind, answer), park)
    if (messageId === undefined) return
    this.#ctx.session.append('subagent/settled', { childId: child.id, epoch, messageId, reason: reason.kind, answer })
    child.quiet = false
    if (this.#state(child).settledAtEnd) this.#live.delete(child.id)
  }

  /**
   * Queues the message `settle:<childId>:<epoch>`: parked in next-turn (on reopen, before the next
   * turn; after a cancel), else a steer while this agent runs, else a follow-up. Its id, or
   * `undefined` when this agent is closed (it is settled on reopen). A duplicate id means it is
   * already in this session: done.
   */
  #post(childId: string, epoch: number, text: string, park: boolean): string | undefined {
    const messageId = `settle:${childId}:${epoch}`
    const message = createUserMessage(text, { id: messageId, source: { kind: 'subagent-settled', childId, epoch } })
    try {
      if (park) this.#ctx.inbox.splice('next-turn', this.#ctx.inbox.nextTurn.length, 0, [message])
      else if (this.#ctx.agent.status === 'running') this.#ctx.agent.steer(message)
      else this.#ctx.agent.followup(message)
    } catch (error) {
      if (BosunError.is(error, ErrorCodes.AGENT_CLOSED)) return undefined
      if (!BosunError.is(error, ErrorCodes.DUPLICATE_MESSAGE_ID)) throw error
    }
    return messageId
  }

  async #awaitForeground(child: Child, signal: AbortSignal): Promise<ToolResultObject> {
    const onAbort = () => child.agent.cancel()
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort() // aborted while the child was being created
    try {
      let settlement: Settlement | undefined
      while (!(settlement = this.#state(child).settlements[0])) {
        await new Promise<void>((resolve) => {
          child.waiters.add(resolve)
          if (this.#state(child).settlements[0] || (signal.aborted && child.agent.status === 'idle')) resolve()
        }).finally(() => child.waiters.clear())
        if (signal.aborted && child.agent.status === 'idle' && !this.#state(child).settlements[0]) break
      }
      const reason = settlement?.reason.kind ?? 'aborted'
      const answer = settlement?.answer ?? ''
      // Before the tool result, in the same log: a crash between the two leaves the answer here, and recovery delivers it.
      this.#ctx.session.append('subagent/settled', { childId: child.id, epoch: 1, reason, answer })
      this.#live.delete(child.id)
      if (signal.aborted || reason === 'aborted') {
        return { content: `Agent ${child.id} was aborted with your step.${answer ? ` Partial answer:\n${answer}` : ''}`, isError: true }
      }
      if (reason !== 'completed') {
        return { content: `Agent ${child.id} did not complete (end reason: ${reason}).${answer ? ` Partial answer:\n${answer}` : ''}`, isError: true }
      }
      return { content: answer || `Agent ${child.id} finished without an answer.` }
    } finally {
      signal.removeEventListener('abort', onAbort)
      await this.#closeChild(child).catch(() => {})
    }
  }

  async #closeChild(child: Child): Promise<void> {
    if (child.closed) return
    child.closed = true
    await child.agent.close()
  }
}
