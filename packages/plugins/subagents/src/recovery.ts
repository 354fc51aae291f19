import type { PluginContext, TurnEndReason } from '@bosun/core'
import { closeChild, type Child } from './child-agent.js'
import { admitTask, delegationOf, hasNoOwnEvents, peekSession, settleText, type ChildSpec } from './child-session.js'
import { foldChild } from './fold.js'
import { settledForGood, type ParentRecord, type SpawnRecord } from './parent-record.js'
import type { SettlementDelivery } from './settlement.js'

/** What recovery works with: the parent's context and record, and the delegator's children. */
export interface RecoveryScope {
  ctx: PluginContext
  record: ParentRecord
  resume: boolean
  delivery: SettlementDelivery
  /** Children counted against `maxLiveChildren`. */
  live: Set<string>
  /** Opens a child's agent (it becomes one of the delegator's children); with `create`, its session is new (made once its setups passed). */
  open(childId: string, mode: 'foreground' | 'background', profile: string | undefined, create?: ChildSpec): Promise<Child>
}

/**
 * On reopen, before any turn: settles every child whose log shows settlements the parent lacks
 * (queued without a wake), wakes what must run, adopts what a crash left unmade. A child the
 * parent's log shows settled for good is not opened at all: it is opened when the model next sends to it.
 */
export async function recoverChildren(scope: RecoveryScope): Promise<void> {
  const { ctx, record } = scope
  for (const [childId, spawned] of record.spawned) {
    const settled = record.settled.get(childId)
    if (spawned.mode === 'foreground' && settled?.has(1)) {
      // Settled, but the crash cut the tool result that carried the answer: it comes as a message instead.
      if (spawned.result === 'lost') await redeliver(scope, childId, spawned)
      continue
    }
    if (settledForGood(record, childId)) continue
    const stored = await peekSession(ctx, childId)
    if (!stored || hasNoOwnEvents(stored)) {
      // The spawn is recorded but the crash fell before the task reached the child: adopt it (make
      // what is missing, admit the task) — unless the spawn failed and was settled as an error.
      if (!settled?.size) await adopt(scope, childId, spawned, stored === undefined).catch(() => unadoptable(scope, childId, spawned))
      continue
    }
    const child = await scope.open(childId, spawned.mode, spawned.agent)
    // What the logs show settled is queued without a wake: resuming starts no turn by itself.
    for (const settlement of child.fold.settlements) scope.delivery.deliver(child, settlement, true)
    if (!child.fold.settledAtEnd) {
      scope.live.add(childId)
      if (child.fold.state.pending) child.agent.wake()
    } else if (spawned.mode === 'foreground') {
      await closeChild(child)
    }
  }
}

/** Recovery of a child recorded as spawned whose session or task the crash left unmade: it runs its task now. */
async function adopt(scope: RecoveryScope, childId: string, spawned: SpawnRecord, missing: boolean): Promise<void> {
  // Cannot be missing in logs this plugin wrote (the call is logged before it runs): refuse rather than guess a task.
  if (spawned.task === undefined) throw new Error(`no task recorded for child ${childId}`)
  const delegation = delegationOf(scope.ctx, spawned.callId, spawned.depth, spawned.mode)
  const context = spawned.context ?? 'fresh'
  const create: ChildSpec | undefined = missing ? { childId, delegation, context, ...(context === 'fork' ? { afterTurn: Math.max(0, spawned.turn - 1) } : {}) } : undefined
  const child = await scope.open(childId, spawned.mode, spawned.agent, create)
  await admitTask(scope.ctx, child.agent, spawned.task, spawned.callId)
  scope.live.add(childId)
  child.agent.wake()
}

/**
 * A child recovery could not adopt (its session cannot be made): settled as an error, with a
 * message, rather than failing the parent's reopen — a parent that cannot open is worse.
 */
function unadoptable(scope: RecoveryScope, childId: string, spawned: SpawnRecord): void {
  const messageId = scope.delivery.post(childId, 1, settleText(childId, spawned.agent, 1, 'error', 'It could not be started after a crash.'), true)
  scope.ctx.session.append('subagent/settled', { childId, epoch: 1, ...(messageId === undefined ? {} : { messageId }), reason: 'error', answer: '' })
}

/** A foreground answer whose tool result a crash cut: delivered as the message `settle:<childId>:1`, parked. */
async function redeliver(scope: RecoveryScope, childId: string, spawned: SpawnRecord): Promise<void> {
  const data = scope.record.settled.get(childId)!.get(1)!
  let reason: TurnEndReason | TurnEndReason['kind'] | undefined = data.reason
  let answer = data.answer
  if (reason === undefined || answer === undefined) {
    // A log written before `subagent/settled` held the answer: fold it from the child's own log.
    const stored = await peekSession(scope.ctx, childId)
    const first = stored && foldChild(stored.events, stored.header.seedLength ?? 0, scope.resume).settlements[0]
    reason = first?.reason ?? 'interrupted'
    answer = first?.answer ?? ''
  }
  scope.delivery.post(childId, 1, settleText(childId, spawned.agent, 1, reason, answer), true)
}
