import { definePlugin, derivedFrom, isEvent, Stage, type PreStepDecision, type UserMessage } from '@bosun/core'
import { DEFAULT_MAX_STEPS, optionsSchema, type Options } from './options.js'

export { DEFAULT_MAX_STEPS, optionsSchema } from './options.js'
export type { Options } from './options.js'

/** The `metadata` of a rejection (and of `turn/end {kind: 'blocked'}`). */
export interface StepLimitMetadata {
  reason: 'max-steps'
  /** The limit that was reached. */
  maxSteps: number
  /** The step that was refused: always `maxSteps + 1`. */
  step: number
}

/**
 * step-limit: caps the steps (model calls) of one turn. A model that keeps answering with tool
 * calls — an unknown tool, the same call again and again — would otherwise loop for as long as it
 * likes, resending the growing history each time. When a turn would open step `maxSteps + 1`, the
 * step is rejected: the log gets `agent/pre-step/rejected` and `turn/end {kind: 'blocked', by:
 * 'step-limit', metadata: {reason: 'max-steps', maxSteps, step}}`.
 *
 * What the turn did stays in the history (its tool calls and results), so the next message starts
 * a turn that sees them. A steer or inject the user sent during the last allowed step, which the
 * refused step had claimed, is put back at the head of `next-step` before the refusal is logged:
 * claim is the commit point (SPEC §4), so without this a user's "stop, do this instead" would
 * vanish with the step it meant to ride. So is a background subagent's settlement (its answer,
 * delivered once). Put back, it is pending, so the agent opens the next turn for it at once, as
 * after any blocked turn. Context a tool or a plugin added for the refused step (any other
 * `source.kind`) is not put back: it would open a turn of its own, and a tool that always adds
 * context would start the loop again. Nor is a `user` message, once per run of refused turns, when
 * the turn was opened by what a refusal put back: a tool or plugin that calls `agent.steer('…')` at
 * every step sends one (a plain string's source), and would start turn after turn. A settlement,
 * sent once, is put back all the same.
 *
 * It taps `agent/pre-step` just before `Stage.late`: after the policies that rewrite input, so it
 * sees whether the step still has anything to run, and before rate-limit (`Stage.late`), so a
 * step this plugin refuses never waits for a rate-limit slot.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({ plugins: [['step-limit', { maxSteps: 50 }]] })
 */
export default definePlugin<Options>({
  name: 'step-limit',
  schema: optionsSchema,
  setup({ hooks, name, inbox }, options) {
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
    /** The last step ended with tool results the model has not answered: the next round opens a step. */
    let owesAnswer = false
    /**
     * Every tool result of the running step so far asked to conclude the turn (`concludesTurn`, as
     * the tool/result hook left it): the core then owes the model no answer, and a round after
     * such a step opens one only for input in `next-step` (seen as `decision.messages`).
     */
    let concludes = true
    /** The tool results of the running step so far that this plugin's tap saw (the core concludes only with one or more). */
    let results = 0
    /**
     * The `tool/result` events of the running step so far. One the tap did not see is an error
     * result the core made when a tool/result hook before it threw: it does not conclude the turn.
     */
    let logged = 0
    hooks.toolResult.tap({ name, stage: Stage.last }, (result) => {
      results++
      concludes &&= result.concludesTurn
      return result
    })
    hooks.event.tap(name, (event) => {
      if (isEvent(event, 'step/start')) {
        results = 0
        logged = 0
        concludes = true
      } else if (isEvent(event, 'tool/result')) logged++
      else if (isEvent(event, 'step/end')) owesAnswer = event.data.finish === 'tool-calls' && !(results > 0 && results === logged && concludes)
    })
    /** The ids of the messages the last refusal put back: a turn they open is not given another put-back. */
    let putBack: ReadonlySet<string> = new Set()
    /** The running turn was opened by messages a refusal put back. */
    let reopened = false
    hooks.preStep.tap({ name, stage: Stage.late - 1 }, (decision, { step, signal, claimed }): PreStepDecision => {
      if (step === 1) {
        reopened = putBack.size > 0 && claimed.some((message) => putBack.has(message.id))
        putBack = new Set()
      }
      // An aborted turn ends `aborted` as it would without this plugin.
      if (decision.kind !== 'enter' || signal.aborted || step <= maxSteps) return decision
      // A round with nothing to enter and no answer owed opens no step (the turn completes): it is
      // not over the limit, and refusing it would turn a finished turn into a blocked one.
      if (decision.messages.length === 0 && !owesAnswer) return decision
      // Once per run of refused turns: a turn the put-back opened, refused too, puts back no `user`
      // message. A tool or plugin that calls `agent.steer('…')` at every step sends one (a plain
      // string's default source), which would otherwise open turn after turn. A child's settlement
      // is still put back: it is sent once (lost, the parent never learns the answer), so it
      // cannot start a loop.
      const wanted = stillWanted(claimed, decision.messages)
      const returned = reopened ? wanted.filter((message) => message.source.kind !== 'user') : wanted
      if (returned.length > 0) inbox.requeue('next-step', 0, returned)
      putBack = new Set(returned.map((message) => message.id))
      const metadata: StepLimitMetadata = { reason: 'max-steps', maxSteps, step }
      return { kind: 'reject', metadata: { ...metadata } }
    })
  },
})

/**
 * The claimed messages sent to the agent ({@link SENT}) that the refused step still meant to enter: those it kept as
 * they were and those an earlier policy rewrote (`source.derivedFrom`), as claimed — a rewrite is
 * made again when they next ride a step. A message an earlier policy dropped stays dropped.
 */
function stillWanted(claimed: readonly UserMessage[], entering: readonly UserMessage[]): UserMessage[] {
  const wanted = new Set<string>()
  for (const message of entering) {
    wanted.add(message.id)
    for (const id of derivedFrom(message)) wanted.add(id)
  }
  return claimed.filter((message) => SENT.has(message.source.kind) && wanted.has(message.id))
}

/**
 * The sources whose messages were sent to the agent, once, and are put back: a person's, and a
 * background subagent's settlement (the subagents plugin delivers the child's answer as a steer
 * while the parent runs, records it delivered, and never sends it again: lost, the parent would
 * never learn what its child found). Context a tool or a plugin adds as the steps go is not: it
 * would open a turn of its own, and one that adds context every step would loop again.
 */
const SENT: ReadonlySet<string> = new Set(['user', 'subagent-settled'])
