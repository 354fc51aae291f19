import { definePlugin, isEvent, Stage, type PreStepDecision } from '@bosun/core'
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
 * a turn that sees them. What the refused step had claimed (a steer or inject that arrived during
 * the last step, a tool's added context) is consumed with it: claim is the commit point (SPEC §4).
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
  setup({ hooks, name }, options) {
    const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
    /** The last step ended with tool results the model has not answered: the next round opens a step. */
    let owesAnswer = false
    hooks.event.tap(name, (event) => {
      if (isEvent(event, 'step/end')) owesAnswer = event.data.finish === 'tool-calls'
    })
    hooks.preStep.tap({ name, stage: Stage.late - 1 }, (decision, { step, signal }): PreStepDecision => {
      // An aborted turn ends `aborted` as it would without this plugin.
      if (decision.kind !== 'enter' || signal.aborted || step <= maxSteps) return decision
      // A round with nothing to enter and no answer owed opens no step (the turn completes): it is
      // not over the limit, and refusing it would turn a finished turn into a blocked one.
      if (decision.messages.length === 0 && !owesAnswer) return decision
      const metadata: StepLimitMetadata = { reason: 'max-steps', maxSteps, step }
      return { kind: 'reject', metadata: { ...metadata } }
    })
  },
})
