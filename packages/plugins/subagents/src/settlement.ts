import { BosunError, createUserMessage, ErrorCodes, type PluginContext } from '@bosun/core'
import { closeChild, type Child } from './child-agent.js'
import { settleText } from './child-session.js'
import type { Settlement } from './fold.js'
import type { ParentRecord } from './parent-record.js'

/**
 * Settles children into this agent: one durable message per settled epoch, recorded by
 * `subagent/settled`. Until the agent is ready (every plugin set up, see `onReady`) nothing that
 * could start a turn is sent: settlements of children woken by recovery wait.
 */
export class SettlementDelivery {
  readonly #ctx: PluginContext
  readonly #record: ParentRecord
  readonly #live: Set<string>
  /** Children that settled before the agent was ready; `undefined` once it is. */
  #deferred: Set<Child> | undefined = new Set()
  #closing = false

  constructor(ctx: PluginContext, record: ParentRecord, live: Set<string>) {
    this.#ctx = ctx
    this.#record = record
    this.#live = live
  }

  /** The agent is built (`onReady`): what settled meanwhile is delivered as usual, waking it if idle. */
  ready(): void {
    const deferred = this.#deferred ?? new Set()
    this.#deferred = undefined
    for (const child of deferred) this.settleFrom(child)
  }

  /** The agent is closing: what settles from now on is delivered on reopen, from the children's logs. */
  close(): void {
    this.#closing = true
  }

  /** A child went idle: each settlement of its log not yet in this agent is delivered (after a cancel, parked). */
  settleFrom(child: Child): void {
    if (this.#closing) return
    if (this.#deferred) return void this.#deferred.add(child)
    for (const settlement of child.fold.settlements) this.deliver(child, settlement, child.quiet)
    // A foreground child that recovery woke answered by message: one-shot, so closed like any foreground child.
    if (child.mode === 'foreground' && child.fold.settledAtEnd) void closeChild(child).catch(() => {})
  }

  /** One durable message per settled epoch: a steer while this agent runs, else a follow-up; a repeat is a duplicate id, i.e. already settled. */
  deliver(child: Child, settlement: Settlement, park: boolean): void {
    if (this.#record.settled.get(child.id)?.has(settlement.epoch)) return
    const { epoch, reason, answer } = settlement
    const messageId = this.post(child.id, epoch, settleText(child.id, child.profile, epoch, reason, answer), park)
    if (messageId === undefined) return
    this.#ctx.session.append('subagent/settled', { childId: child.id, epoch, messageId, reason: reason.kind, answer })
    child.quiet = false
    if (child.fold.settledAtEnd) this.#live.delete(child.id)
  }

  /**
   * Queues the message `settle:<childId>:<epoch>`: parked in next-turn (on reopen, before the next
   * turn; after a cancel), else a steer while this agent runs, else a follow-up. Its id, or
   * `undefined` when this agent is closed (it is settled on reopen). A duplicate id means it is
   * already in this session: done.
   */
  post(childId: string, epoch: number, text: string, park: boolean): string | undefined {
    const messageId = `settle:${childId}:${epoch}`
    // A waking send records how it was sent (`delivery`, as the host does), so that a crash between
    // its admission and the turn it starts is woken on reopen (core's `recovery.waiting`); a parked one does not.
    const delivery = park ? undefined : this.#ctx.agent.status === 'running' ? 'steer' : 'followup'
    const source = { kind: 'subagent-settled', childId, epoch, ...(delivery ? { delivery } : {}) }
    const message = createUserMessage(text, { id: messageId, source })
    try {
      if (delivery === undefined) this.#ctx.inbox.splice('next-turn', this.#ctx.inbox.nextTurn.length, 0, [message])
      else if (delivery === 'steer') this.#ctx.agent.steer(message)
      else this.#ctx.agent.followup(message)
    } catch (error) {
      if (BosunError.is(error, ErrorCodes.AGENT_CLOSED)) return undefined
      if (!BosunError.is(error, ErrorCodes.DUPLICATE_MESSAGE_ID)) throw error
    }
    return messageId
  }
}
