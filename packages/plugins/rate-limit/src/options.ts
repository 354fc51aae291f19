import type { JsonSchema } from '@bosun/core'

/** What happens to a step that arrives when its limit is spent. */
export type OnLimit = 'reject' | 'delay' | 'requeue'

/**
 * The options of the rate-limit plugin, as a config file gives them:
 * `['rate-limit', { turnsPerMinute: 20, per: 'source' }]`. At least one of `turnsPerMinute` and
 * `stepsPerMinute` is required.
 */
export interface Options {
  /**
   * Turns that may start in any window of `windowMs` (a minute by default). A turn counts when
   * its first step is admitted (`step/start` with `step: 1`); a rejected turn does not count.
   */
  turnsPerMinute?: number
  /**
   * Steps that may run in any window of `windowMs`: every admitted step counts, the first of a
   * turn and each one after a tool call.
   */
  stepsPerMinute?: number
  /**
   * How many may run back to back. Spent capacity comes back one slot every
   * `windowMs / limit` (a token bucket of `burst` tokens), and never more than the limit run in
   * one window. Default: the limit itself, i.e. a plain sliding window. Applies to each limit.
   */
  burst?: number
  /** Count per session (default), or per source of the input (per user): see `sourceKey`. */
  per?: 'session' | 'source'
  /**
   * `reject` (default): the turn ends `blocked` with `{ limit, windowMs, retryAfterMs, … }`.
   * `delay`: wait (abort-aware) until the limit allows the step, then admit it.
   * `requeue`: reject now, and put the messages back at the head of `next-turn` after
   * `retryAfterMs`. A limited step after the first of a turn is always delayed instead.
   */
  onLimit?: OnLimit
  /**
   * The window the per-minute limits count over, in milliseconds. Default `60000`. Mostly for
   * tests and for other periods: `{ turnsPerMinute: 100, windowMs: 3_600_000 }` is 100 an hour.
   * No upper bound: it is arithmetic, and a wait longer than a timer's (24.8 days) is taken in steps.
   */
  windowMs?: number
  /**
   * With `per: 'source'`: the field of `message.source` that names who sent it. Default
   * `'userId'`. A message whose source lacks the field is counted under its `source.kind`.
   */
  sourceKey?: string
}

const limit = (description: string) => ({ type: 'integer', minimum: 1, description })

/**
 * The JSON Schema of {@link Options}. Bosun validates a config's options against it (with ajv)
 * before `setup` runs, so a bad config fails at startup with `PLUGIN_OPTIONS_INVALID` naming each
 * JSON path. Keep it in step with the interface above.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    turnsPerMinute: limit('Turns that may start in any window (a minute by default).'),
    stepsPerMinute: limit('Steps that may run in any window (a minute by default).'),
    burst: limit('How many may run back to back; default: the limit (a plain sliding window).'),
    per: { enum: ['session', 'source'], default: 'session', description: 'Count per session, or per source (user).' },
    onLimit: { enum: ['reject', 'delay', 'requeue'], default: 'reject', description: 'What happens to a step over the limit.' },
    windowMs: { type: 'integer', minimum: 1, default: 60_000, description: 'The window the limits count over, in ms.' },
    sourceKey: { type: 'string', minLength: 1, default: 'userId', description: 'With per: source, the source field naming the sender.' },
  },
  anyOf: [{ required: ['turnsPerMinute'] }, { required: ['stepsPerMinute'] }],
  // Said once, as the README says it: "turnsPerMinute is required" and "stepsPerMinute is required"
  // side by side read as if both were.
  'x-expected': 'an object with turnsPerMinute or stepsPerMinute (at least one)',
  additionalProperties: false,
}
