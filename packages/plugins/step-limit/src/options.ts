import type { JsonSchema } from '@bosun/core'

/**
 * The default `maxSteps`. A step is one model call; a turn takes one step plus one per round of
 * tool calls. 25 leaves room for a real multi-tool task (read a few files, edit, run the tests,
 * read the failures, fix) while a model stuck calling a tool — an unknown one, or the same one with
 * the same arguments — is stopped before the cost runs away: each step resends the whole growing
 * history, so a loop's tokens grow with the square of its steps. LangGraph's default
 * `recursion_limit` is 25 for the same reason.
 */
export const DEFAULT_MAX_STEPS = 25

/** The options of the step-limit plugin, as a config file gives them: `['step-limit', { maxSteps: 50 }]`. */
export interface Options {
  /**
   * The most steps (model calls) one turn may run. When the turn would open step `maxSteps + 1`,
   * the step is rejected and the turn ends `blocked`. Default {@link DEFAULT_MAX_STEPS} (25).
   */
  maxSteps?: number
}

/**
 * The JSON Schema of {@link Options}: the one source of the options for a config file and a code
 * caller alike. Bosun validates options against it (with ajv) before `setup` runs, so a bad value
 * fails at startup with `PLUGIN_OPTIONS_INVALID` naming its JSON path.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    maxSteps: {
      type: 'integer',
      minimum: 1,
      default: DEFAULT_MAX_STEPS,
      description: 'The most steps (model calls) one turn may run; the step after them is rejected and the turn ends blocked.',
    },
  },
  additionalProperties: false,
}
