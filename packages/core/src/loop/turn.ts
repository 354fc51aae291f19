import { BosunError, ErrorCodes, serializeError } from '../errors.js'
import type { PreStepDecision } from '../hooks.js'
import { toFrozenJson, type JsonValue } from '../json.js'
import type { TurnEndReason } from '../session/events.js'
import { createUserMessage, derivedFrom, toUserMessage, type UserMessage } from '../session/messages.js'
import { appendOwnedData } from '../session/session.js'
import { runToolCalls } from '../tools/runner.js'
import { ABORTED, unlessAborted, type TurnAbort } from '../when-aborted.js'
import { callModel } from './model-call.js'
import type { AgentRuntime, StepScope } from './runtime.js'

/** How a turn ended, plus whether an exception (not a model outcome) ended it. */
export interface TurnOutcome {
  reason: TurnEndReason
  /** A hook, the system prompt or the store threw: the driver stops and leaves pending work parked. */
  crashed: boolean
  /** False when `turn/start` could not be appended: no turn exists, its number is not used up. */
  started: boolean
}

/**
 * One turn: `turn/start`, steps until the turn ends, `turn/end` — the last appended in a
 * `finally` that nothing can throw past, so the two are always paired.
 */
export async function runTurn(rt: AgentRuntime, turn: number, abort: TurnAbort, started: () => void): Promise<TurnOutcome> {
  try {
    appendOwnedData(rt.session, 'turn/start', { turn })
    started()
  } catch (error) {
    // Nothing was claimed yet: the input stays pending for the next wake, the number unused.
    rt.session.reportError(error, 'appending turn/start')
    return { reason: { kind: 'error', error: serializeError(error) }, crashed: true, started: false }
  }
  let outcome: TurnOutcome = {
    reason: { kind: 'error', error: { code: 'UNEXPECTED', message: 'The turn ended unexpectedly.' } }, crashed: true, started: true,
  }
  const open = { step: 0 }
  try {
    outcome = { reason: await runSteps(rt, turn, abort, open), crashed: false, started: true }
  } catch (error) {
    outcome = abort.aborted
      ? { reason: abortedReason(abort), crashed: false, started: true }
      : { reason: { kind: 'error', error: serializeError(error) }, crashed: true, started: true }
  } finally {
    try {
      if (open.step > 0) {
        rt.session.append('step/end', { turn, step: open.step, finish: outcome.reason.kind === 'aborted' ? 'aborted' : 'error' })
      }
    } catch (error) {
      rt.session.reportError(error, 'closing an open step')
    }
    try {
      const { reason } = outcome
      // The two reasons that are a kind alone are logged as shared frozen data (owned: no copy).
      if (reason.kind === 'completed') appendOwnedData(rt.session, 'turn/end', { turn, reason: COMPLETED })
      else if (reason.kind === 'max-tokens') appendOwnedData(rt.session, 'turn/end', { turn, reason: MAX_TOKENS })
      else rt.session.append('turn/end', { turn, reason })
    } catch (error) {
      // Only a non-JSON reason could get here; record the turn's end without it rather than not at all.
      rt.session.reportError(error, 'appending turn/end')
      rt.session.append('turn/end', { turn, reason: { kind: 'error', error: serializeError(error) } })
    }
  }
  return outcome
}

/**
 * The step loop. `open.step` is the step that has a `step/start` but no `step/end` yet (0: none).
 *
 * Each round claims (the prompt first, then `next-step`), runs the pre-step chain and, on
 * `enter`, opens the next step. A round whose entered batch is empty opens no step unless the
 * model still owes an answer to tool results: with nothing pending it ends the turn `completed`,
 * with input in `next-step` it claims again.
 */
async function runSteps(rt: AgentRuntime, turn: number, abort: TurnAbort, open: { step: number }): Promise<TurnEndReason> {
  let opened = 0
  /** The last step ended with tool results the model has not answered yet. */
  let owesAnswer = false
  let promptClaimed = false
  for (;;) {
    const step = opened + 1
    const scope: StepScope = { turn, step, abort }
    // An aborted turn claims nothing more: input queued before the abort stays where it is, for the
    // next turn's first claim (seed 000, "abort 后的 next-step 消息"). An observer of turn/start or
    // of the last step's events can abort with no await before this point.
    if (abort.aborted) return abortedReason(abort)
    const claimed = rt.inbox.claim(promptClaimed ? 'next-step' : 'next-turn', turn)
    if (!promptClaimed && claimed.length === 0) return { kind: 'completed' } // a listener emptied the inbox
    // The first pre-step checkpoint (seed 003 §14): the enqueue, turn/start and the claim are made
    // durable before any plugin runs, so a crash during a long pre-step (a rate-limit delay) still
    // finds the claim in the log and recovery re-queues the message.
    // Without pre-step or prepareCall taps or a system function nothing can wait here: the flush
    // before the model request, a few appends later, covers the claim (one fsync per step, not two).
    if (!promptClaimed && (rt.hooks.preStep.taps.length > 0 || rt.hooks.prepareCall.taps.length > 0 || typeof rt.system === 'function')) {
      await rt.session.flush()
    }
    promptClaimed = true
    // What plugins compute before the step is raced against the abort: one that ignores the signal
    // cannot hold an aborted turn (seed 000), nor `close()`.
    const system = typeof rt.system === 'function' ? await unlessAborted(Promise.resolve(rt.system({ turn, step, session: rt.session })), abort) : rt.system
    if (system === ABORTED) return abortedReason(abort)
    if (typeof system !== 'string') throw new BosunError(ErrorCodes.INVALID_HOOK_RESULT, 'The system prompt function must return a string.')
    let decision: ReturnType<typeof checkDecision> = { kind: 'enter', messages: claimed }
    if (rt.hooks.preStep.taps.length > 0) {
      const decided = await unlessAborted(
        rt.hooks.preStep.promise(decision, { turn, step, signal: abort.signal, session: rt.session, inbox: rt.inbox, surface: rt.surface, claimed, system }),
        abort,
      )
      if (decided === ABORTED) return abortedReason(abort)
      decision = checkDecision(decided)
    }
    if (decision.kind === 'reject') {
      const by = decision.by ?? 'unknown'
      const metadata = toFrozenJson(decision.metadata ?? null, `The pre-step reject metadata of "${by}"`)
      rt.session.append('agent/pre-step/rejected', { turn, by, metadata })
      return { kind: 'blocked', by, metadata }
    }
    if (abort.aborted) return abortedReason(abort)
    const entered = linkDerived(decision.messages ?? [], claimed)
    if (entered.length === 0 && !owesAnswer) {
      // Nothing new for the model: no step, no request (seed 000).
      if (rt.inbox.nextStep.length > 0) continue
      return { kind: 'completed' }
    }

    appendOwnedData(rt.session, 'step/start', { turn, step })
    open.step = opened = step
    owesAnswer = false
    for (const message of entered) rt.session.append('user/message', message)
    const call = await callModel(rt, scope, system)

    if (call.finish === 'tool-calls') {
      const tools = await runToolCalls(call.toolCalls, {
        turn, step, abort, session: rt.session, inbox: rt.inbox, surface: rt.surface, hooks: rt.hooks, registry: rt.tools,
        maxParallel: rt.maxParallelTools,
      })
      for (const result of tools.results) {
        if (result.additionalContexts.length === 0) continue
        // Text a tool adds is context from that tool, not something the user said.
        const source = { kind: 'tool', tool: result.name, callId: result.callId }
        const contexts = result.additionalContexts.map((context) => (typeof context === 'string' ? createUserMessage(context, { source }) : context))
        rt.inbox.splice('next-step', Infinity, 0, contexts)
      }
      const finish = abort.aborted ? 'aborted' : 'tool-calls'
      appendOwnedData(rt.session, 'step/end', { turn, step, finish })
      open.step = 0
      if (abort.aborted) return abortedReason(abort)
      if (tools.concludes && rt.inbox.nextStep.length === 0) return { kind: 'completed' }
      owesAnswer = !tools.concludes
      continue
    }

    appendOwnedData(rt.session, 'step/end', { turn, step, finish: call.finish })
    open.step = 0
    switch (call.finish) {
      case 'aborted':
        return abortedReason(abort)
      case 'error':
        // Marked: the driver goes on with queued input after a failed call (not after a throw), and
        // recovery must know which of the two a logged `error` end was.
        return { kind: 'error', error: call.error ?? { code: 'UNEXPECTED', message: 'The model call failed.' }, model: true }
      case 'max-tokens':
        // Sticky for the turn: a plugin on the retry / compaction paths may take it before here.
        return { kind: 'max-tokens' }
      default:
        // A steer or inject that arrived during the step rides one more step of this turn
        // ("插话/纠正，不开新 turn，但确保被处理"); only an empty next-step ends it.
        if (rt.inbox.nextStep.length > 0) continue
        return { kind: 'completed' }
    }
  }
}

/**
 * The messages a pre-step enters, each linked to the claimed input it came from: a message under
 * a new id that does not say (`source.derivedFrom`) is taken as derived from every claimed message
 * not entered as itself, so recovery and the audit fold never count that input as unrun.
 */
function linkDerived(entered: readonly UserMessage[], claimed: readonly UserMessage[]): readonly UserMessage[] {
  if (entered.length === claimed.length && entered.every((message, i) => message.id === claimed[i]!.id)) return entered
  const enteredIds = new Set(entered.map((message) => message.id))
  const claimedIds = new Set(claimed.map((message) => message.id))
  const replaced = claimed.filter((message) => !enteredIds.has(message.id)).map((message) => message.id)
  if (replaced.length === 0) return entered
  return entered.map((message) =>
    claimedIds.has(message.id) || derivedFrom(message).length > 0
      ? message
      : createUserMessage(message.content, { id: message.id, source: { ...message.source, derivedFrom: replaced } }),
  )
}

const COMPLETED: TurnEndReason = Object.freeze({ kind: 'completed' })
const MAX_TOKENS: TurnEndReason = Object.freeze({ kind: 'max-tokens' })

function abortedReason(abort: TurnAbort): TurnEndReason {
  const reason = abort.signal.reason
  return typeof reason === 'string' ? { kind: 'aborted', reason } : { kind: 'aborted' }
}

function checkDecision(value: unknown): PreStepDecision & { messages?: readonly UserMessage[] } {
  const decision = value as PreStepDecision | undefined
  if (decision?.kind === 'reject') return decision
  if (decision?.kind === 'enter' && Array.isArray(decision.messages)) {
    return { kind: 'enter', messages: decision.messages.map((m, i) => toUserMessage(m, `pre-step messages[${i}]`)) }
  }
  throw new BosunError(
    ErrorCodes.INVALID_HOOK_RESULT,
    `The "agent/pre-step" hook must return { kind: 'enter', messages } or { kind: 'reject', metadata }, got ${JSON.stringify(value)?.slice(0, 120)}.`,
  )
}

export type { JsonValue }
