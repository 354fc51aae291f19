import { definePlugin, Stage, type PreStepDecision, type UserMessage } from '@bosun/core'
import { inputRules, judgeMessage } from './input.js'
import { optionsSchema, type Options } from './options.js'
import { filterOutput, outputRules } from './output.js'
import { compileRules } from './rules.js'

export { optionsSchema } from './options.js'
export type { Options, Rule, RuleAction, RulePredicate, RuleScope } from './options.js'
export type { InputRejection } from './input.js'
export { ContentFilteredError } from './output.js'
export { CREDENTIAL_NOT_QUOTED } from './scan.js'

/** The data of `content-filter/redacted`: a rule rewrote input or output. Never the matched text. */
export type ContentFilterRedacted = {
  turn: number
  step: number
  scope: 'input' | 'output'
  rule: string
  /** How many matches were replaced (for `maxLength`, 1: the cut). */
  count: number
  /** For input: the message that entered rewritten. */
  messageId?: string
}

declare module '@bosun/core' {
  interface BosunEventMap {
    'content-filter/redacted': ContentFilterRedacted
  }
}

/**
 * content-filter: rejects or redacts input by regular expression, keyword list (case- and
 * accent-insensitive), maximum length or a custom predicate — and, for rules with
 * `scope: 'output' | 'both'`, the model's streamed text as well.
 *
 * Input is judged on `agent/pre-step` at `Stage.early`, so later policies (and the rate limiter)
 * see the redacted text. A reject ends the turn `blocked` with {@link InputRejection} metadata; a
 * redaction lets the message enter rewritten under the same id and source, and writes
 * `content-filter/redacted` (which rule, which message — never the text). Output is filtered on
 * `llm/stream` at `Stage.late`, outside a retry plugin, so retried attempts are filtered too.
 *
 * Patterns, flags, ids and predicates are checked in `setup`, when the agent is built: a bad one
 * fails there with `PLUGIN_OPTIONS_INVALID` naming its JSON path.
 *
 * @example
 * // bosun.config.ts
 * export default defineConfig({
 *   plugins: [['content-filter', { rules: [
 *     { id: 'card', pattern: '\\b(?:\\d[ -]?){12,15}\\d\\b', action: 'redact', replacement: '[card]', scope: 'both' },
 *     { id: 'slurs', keywords: ['…'], action: 'reject' },
 *     { id: 'long', maxLength: 8000, action: 'reject' },
 *   ] }]],
 * })
 */
export default definePlugin<Options>({
  name: 'content-filter',
  schema: optionsSchema,
  events: { 'content-filter/redacted': { ignorable: true } },
  setup({ hooks, name, session }, options) {
    const rules = compileRules(options, name)
    const order = new Map(rules.map((rule, index) => [rule.id, index]))

    const input = inputRules(rules)
    if (input.spans.length + input.tests.length + input.lengths.length > 0) {
      hooks.preStep.tapPromise({ name, stage: Stage.early }, async (decision, { turn, step }): Promise<PreStepDecision> => {
        if (decision.kind !== 'enter') return decision
        const messages: UserMessage[] = []
        const redactions: ContentFilterRedacted[] = []
        for (const message of decision.messages) {
          const verdict = judgeMessage(message, input)
          if (verdict.kind === 'reject') return { kind: 'reject', metadata: verdict.metadata }
          messages.push(verdict.message)
          // one event per rule that rewrote the message, in the order the rules are listed
          const byRule = [...verdict.redacted].sort(([a], [b]) => order.get(a)! - order.get(b)!)
          for (const [rule, count] of byRule) redactions.push({ turn, step, scope: 'input', rule, count, messageId: message.id })
        }
        if (redactions.length === 0) return decision
        for (const redaction of redactions) session.append('content-filter/redacted', redaction)
        return { kind: 'enter', messages }
      })
    }

    const output = outputRules(rules, options.outputWindow)
    if (output) {
      hooks.llmStream.tap({ name, stage: Stage.late }, (stream, { turn, step }) =>
        filterOutput(stream, output, {
          redacted: (rule, count) => session.append('content-filter/redacted', { turn, step, scope: 'output', rule, count }),
          onRestart: (listener) =>
            session.subscribe((event) => {
              const data = event.data as { turn?: number; step?: number }
              if (event.type === 'llm/retry' && data.turn === turn && data.step === step) listener()
            }),
        }),
      )
    }
  },
})
