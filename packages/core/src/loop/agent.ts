import { BosunError, ErrorCodes, invalidArgument } from '../errors.js'
import type { AgentHooks, AgentStatus } from '../hooks.js'
import type { Inbox } from '../inbox/inbox.js'
import { idAlreadyUsed } from '../inbox/queues.js'
import type { InboxTarget } from '../inbox/types.js'
import { toSentMessage, type MessageInput, type UserMessage } from '../session/messages.js'
import type { Session } from '../session/session.js'
import type { Surface } from '../session/surface.js'
import type { RepairReport } from '../store/repair.js'
import type { AgentRuntime } from './runtime.js'
import { ownedAbortController, type TurnAbort } from '../when-aborted.js'
import { runTurn } from './turn.js'

type OwnedAbortController = TurnAbort

type Phase = 'idle' | 'running' | 'maintenance'

/** What a maintenance task receives. */
export interface MaintenanceContext {
  signal: AbortSignal
  session: Session
  inbox: Inbox
  surface: Surface
  hooks: AgentHooks
}

export interface CancelOptions {
  /** Keep pending input (parked until the next wake) instead of canceling it. Default false. */
  keepInbox?: boolean
}

/**
 * The agent: a driver that turns inbox messages into turns, one at a time.
 *
 * Phases: `idle` (no driver), `running` (a driver owns the loop; one turn per follow-up, FIFO,
 * with a fresh AbortController per turn — seed 003: after each turn the driver "switches to a new
 * AbortController" — so aborting one turn never reaches work another turn started) and
 * `maintenance` (non-turn work; shown as idle).
 * Concurrent wakes never create two drivers: a wake while running is a no-op (the driver checks
 * for pending work after each turn), and a waking send that arrives after an abort is latched
 * and honoured when the aborted driver retires.
 */
export class Agent {
  #phase: Phase = 'idle'
  #status: AgentStatus = 'idle'
  #turnController: OwnedAbortController | undefined
  #maintenanceController: AbortController | undefined
  /** A waking send arrived while the active turn was aborted (or during maintenance). */
  #wakeRequested = false
  #closed = false
  /** {@link stopAfterTurn} was called: the running turn may finish, no other starts. */
  #stopping = false
  #lastTurn: number
  #idleWaiters: (() => void)[] = []
  readonly #teardowns: (() => void | Promise<void>)[] = []
  readonly #onStop: (() => void | Promise<void>)[] = []
  #stopped: Promise<void> | undefined

  /**
   * @param recovery what opening the session repaired (a turn a crash left open), if anything.
   */
  constructor(
    private readonly rt: AgentRuntime,
    readonly recovery: RepairReport = { notStarted: [], outcomeUnknown: [], requeued: [] },
  ) {
    this.#lastTurn = lastTurnNumber(rt.session)
  }

  get session(): Session {
    return this.rt.session
  }

  get inbox(): Inbox {
    return this.rt.inbox
  }

  get hooks(): AgentHooks {
    return this.rt.hooks
  }

  /** The model-visible history, maintained incrementally from the log. */
  get surface(): Surface {
    return this.rt.surface
  }

  /** `running` while a driver owns the loop (across consecutive turns); `idle` otherwise, maintenance included. */
  get status(): AgentStatus {
    return this.#status
  }

  /** Number of the last turn started (0 before the first). */
  get turn(): number {
    return this.#lastTurn
  }

  /**
   * Queues input for its own turn (FIFO) and wakes the agent. Returns the message queued; its id
   * is the receipt. Its source records `delivery: 'followup'` unless the input's already says how
   * it was sent (as for `steer` and `inject`), so crash repair knows a wake was owed for it.
   */
  followup(input: MessageInput): UserMessage {
    return this.#send(input, 'next-turn', 'followup')
  }

  /** Queues input for the next step of the running turn (or opens a turn when idle) and wakes the agent. */
  steer(input: MessageInput): UserMessage {
    return this.#send(input, 'next-step', 'steer')
  }

  /** Queues input for the next step without waking: it rides the next turn or step that happens. */
  inject(input: MessageInput): UserMessage {
    return this.#send(input, 'next-step', 'inject')
  }

  /**
   * Wakes the agent for input already queued: starts a turn when idle and something is pending; a
   * no-op while running; latched after an abort or during maintenance, like a waking send.
   */
  wake(): void {
    if (!this.#takesTurns) return
    if (this.#phase === 'idle') {
      if (this.rt.inbox.hasPending) this.#startDriver()
    } else if (this.#phase === 'maintenance' || this.#turnController?.aborted === true) {
      this.#wakeRequested = true
    }
  }

  /** Registers teardown run by `close()` after the last turn (plugins use it through their context). */
  onClose(teardown: () => void | Promise<void>): void {
    if (typeof teardown !== 'function') throw invalidArgument('onClose(teardown): teardown must be a function.')
    this.#teardowns.push(teardown)
  }

  /** Registers work run by {@link stopAfterTurn} (plugins use it through their context's `onStopAfterTurn`). */
  onStopAfterTurn(callback: () => void | Promise<void>): void {
    if (typeof callback !== 'function') throw invalidArgument('onStopAfterTurn(callback): callback must be a function.')
    this.#onStop.push(callback)
  }

  /** Aborts the active turn (or maintenance task). Pending input survives, parked until the next wake. */
  abort(reason?: string): void {
    if (reason !== undefined && typeof reason !== 'string') throw invalidArgument('abort(reason): reason must be a string.')
    this.#turnController?.abort(reason)
    this.#maintenanceController?.abort(reason)
  }

  /**
   * Aborts, and — unless `keepInbox` — cancels all pending input (durably, next-step first).
   * A closed agent refuses (`AGENT_CLOSED`): its pending input is stored for a resume, so cancel it
   * in the agent that resumes the session.
   */
  cancel(options: CancelOptions = {}): void {
    if (typeof options !== 'object' || options === null) throw invalidArgument('cancel(options): options must be an object.')
    this.#assertOpen()
    if (options.keepInbox !== true) {
      // What was pending when cancel() was called is cleared first, then the turn is aborted: input
      // sent in reaction to the abort (an abort listener's follow-up) is new work for the next wake.
      this.#wakeRequested = false
      this.rt.inbox.clear()
      // Each tap is contained (createHooks): a throwing one cannot keep the next from dropping its input.
      if (this.rt.hooks.canceled.taps.length > 0) this.rt.hooks.canceled.call()
    }
    this.abort('canceled')
  }

  /**
   * Starts no new turn from now on: the running turn (if any) may finish — it still claims the
   * steering of its own steps — but queued input is not claimed for another (seed 003: the claim
   * is the commit point), and sends after this are queued without a turn. What stays queued is
   * stored as it is: `close()` follows, and whoever resumes the session runs it
   * (`recovery.waiting`). A process going away within a grace (the host's `close({ graceMs })`)
   * uses it; it cannot be undone. What plugins run beside the agent's turns is stopped the same
   * way (`onStopAfterTurn`: a subagent's background children). Resolves when idle (`whenIdle()`)
   * and every such callback has settled.
   */
  stopAfterTurn(): Promise<void> {
    this.#stopping = true
    this.#stopped ??= Promise.all([this.whenIdle(), ...this.#onStop.map((callback) => this.#runStopCallback(callback))]).then(() => {})
    return this.#stopped
  }

  async #runStopCallback(callback: () => void | Promise<void>): Promise<void> {
    try {
      await callback()
    } catch (error) {
      this.rt.session.reportError(error, 'a plugin stopAfterTurn callback')
    }
  }

  /** Whether a driver may open turns: not after `close()` nor {@link stopAfterTurn}. */
  get #takesTurns(): boolean {
    return !this.#closed && !this.#stopping
  }

  /** Resolves when no driver or maintenance task is active. */
  whenIdle(): Promise<void> {
    if (this.#phase === 'idle') return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push(resolve))
  }

  /**
   * Runs non-turn work (e.g. compaction) from idle: waits for the running driver to finish,
   * holds off new turns while `task` runs, then honours any wake that arrived meanwhile.
   */
  async runMaintenance<T>(task: (context: MaintenanceContext) => T | Promise<T>): Promise<T> {
    if (typeof task !== 'function') throw invalidArgument('runMaintenance(task): task must be a function.')
    this.#assertOpen()
    while (this.#phase !== 'idle') await this.whenIdle()
    this.#phase = 'maintenance'
    const controller = new AbortController()
    this.#maintenanceController = controller
    try {
      const { session, inbox, surface, hooks } = this.rt
      return await task({ signal: controller.signal, session, inbox, surface, hooks })
    } finally {
      this.#maintenanceController = undefined
      this.#phase = 'idle'
      const woken = this.#wakeRequested && this.rt.inbox.hasPending && this.#takesTurns
      // The latch ends with the task either way — honoured by the driver started here, or with
      // nothing left to run. Kept, the driver would take it as a send after an abort: a Stop right
      // after this wake (a status observer of 'running'), or after a later follow-up, would run that
      // turn anyway instead of parking it (seed 003 §12).
      this.#wakeRequested = false
      if (woken) this.#startDriver()
      else this.#settleIdle()
    }
  }

  /**
   * Compacts the history now, as maintenance between turns (waits for the running turn). Needs a
   * compaction plugin (one that taps `agent/compact`); resolves true if it compacted.
   */
  async compact(reason = 'manual'): Promise<boolean> {
    if (typeof reason !== 'string') throw invalidArgument('compact(reason): reason must be a string.')
    if (this.rt.hooks.compact.taps.length === 0) {
      throw new BosunError(ErrorCodes.NO_COMPACTION, 'No plugin compacts this agent: add a compaction plugin (e.g. "compaction") to its plugins.')
    }
    return this.runMaintenance(async ({ signal, session, inbox, surface }) =>
      (await this.rt.hooks.compact.promise({ signal, session, inbox, surface, adapter: this.rt.adapter, reason })) === true,
    )
  }

  /**
   * Stops accepting input, aborts the active turn, waits for idle, flushes and releases the
   * session's writer (file handles, leases). Pending input stays stored for a resume.
   */
  async close(): Promise<void> {
    if (this.#closed) return this.whenIdle()
    this.#closed = true
    this.abort('closed')
    await this.whenIdle()
    for (const teardown of this.#teardowns) {
      try {
        await teardown()
      } catch (error) {
        this.rt.session.reportError(error, 'a plugin teardown')
      }
    }
    try {
      await this.rt.session.close()
    } finally {
      await this.rt.closeStore?.()
    }
  }

  #send(input: MessageInput, target: InboxTarget, delivery: 'followup' | 'steer' | 'inject'): UserMessage {
    this.#assertOpen()
    const wakeup = delivery !== 'inject'
    // Decided before the splice, so that an observer that cancels during it cannot reclassify it.
    const wakingAfterAbort = wakeup && this.#turnController?.aborted === true
    // The log keeps no other trace of how a message was sent: recovery reads it from the source
    // (a waking send after an abort is queued before that turn's end, yet owed its own turn).
    const message = this.#sentMessage(input, delivery, wakingAfterAbort)
    const queue = wakingAfterAbort ? 'next-turn' : target
    const latch = this.#wakeRequested
    if (wakingAfterAbort || (wakeup && this.#phase === 'maintenance')) this.#wakeRequested = true
    try {
      this.rt.inbox.splice(queue, Infinity, 0, [message])
    } catch (error) {
      this.#wakeRequested = latch
      throw error
    }
    // No hasPending check here: a send from a session observer is applied after the splice being
    // logged, and the driver (which starts on a microtask) checks for work before opening a turn.
    if (wakeup && this.#phase === 'idle' && this.#takesTurns) this.#startDriver()
    return message
  }

  /**
   * The message as sent ({@link toSentMessage}). A used id is a duplicate whatever its source says:
   * re-sending a message the agent queued (its source records how) with another method must answer
   * DUPLICATE_MESSAGE_ID — what callers treat as "already admitted" — not advise another method that
   * would fail with it. Only a refused send pays for the look-up.
   */
  #sentMessage(input: MessageInput, delivery: 'followup' | 'steer' | 'inject', afterAbort: boolean): UserMessage {
    try {
      return toSentMessage(input, delivery, afterAbort)
    } catch (error) {
      const id = BosunError.is(error, ErrorCodes.DELIVERY_MISMATCH) ? (error.details as { id: string }).id : undefined
      if (id !== undefined && this.rt.inbox.hasSeen(id)) throw idAlreadyUsed(id)
      throw error
    }
  }

  #startDriver(): void {
    this.#phase = 'running'
    // The phase and its AbortController are reserved synchronously, before the status is announced,
    // so an abort() right after the waking send — or from a status observer — reaches them; the
    // driver starts on a microtask, so no hook runs inside the caller's followup()/steer() and a
    // burst of sends is queued before the first claim.
    this.#turnController = ownedAbortController()
    this.#setStatus('running')
    // A promise job, not queueMicrotask: Node wraps each queueMicrotask callback in an AsyncResource.
    void Promise.resolve().then(() => this.#drive())
  }

  async #drive(): Promise<void> {
    try {
      let controller = this.#turnController
      while (this.rt.inbox.hasPending && this.#takesTurns) {
        // Made when a turn opens, not after each turn: the last turn of a run needs no successor.
        if (controller === undefined) controller = ownedAbortController()
        else if (controller.aborted) {
          // Aborted before this turn opened (right after the wake, or the previous turn was
          // aborted): queued input is parked unless a waking send arrived after the abort.
          if (!this.#wakeRequested) break
          controller = ownedAbortController()
        }
        this.#wakeRequested = false
        this.#turnController = controller
        // The number is taken once turn/start is in the log: one the store refused is not used up.
        const turn = this.#lastTurn + 1
        const outcome = await runTurn(this.rt, turn, controller, () => (this.#lastTurn = turn))
        if (!outcome.started) break
        // A crash (a hook or the store threw) stops the driver: input stays parked (seed 003 §8).
        if (outcome.crashed && !controller.aborted && !this.#wakeRequested) break
        // Each turn its own controller (seed 003): an abort reaches only the turn it was meant for.
        if (!controller.aborted) controller = undefined
      }
    } catch (error) {
      this.rt.session.reportError(error, 'agent driver')
    } finally {
      this.#turnController = undefined
      this.#wakeRequested = false
      this.#phase = 'idle'
      this.#setStatus('idle')
      this.#settleIdle()
    }
  }

  #settleIdle(): void {
    if (this.#phase !== 'idle') return
    const waiters = this.#idleWaiters
    this.#idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  #setStatus(status: AgentStatus): void {
    if (this.#status === status) return
    this.#status = status
    try {
      if (this.rt.hooks.status.taps.length > 0) this.rt.hooks.status.call(status)
    } catch (error) {
      this.rt.session.reportError(error, 'status observer')
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new BosunError(ErrorCodes.AGENT_CLOSED, 'The agent is closed; create a new agent to resume this session.')
  }
}

/** The last `turn/start` number in the log: resume continues the turn counter. */
function lastTurnNumber(session: Session): number {
  const events = session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'turn/start') return (event.data as { turn: number }).turn
  }
  return 0
}
