import type { JsonSchema } from '@bosun/core'

/** The options of the retry plugin, as a config file gives them: `['retry', { maxAttempts: 5 }]`. */
export interface Options {
  /** Attempts per model request, the first one included (1 turns retrying off). Default 4. */
  maxAttempts?: number
  /** Shortest backoff between attempts, in ms; at most `maxDelayMs`. Default 500. */
  minDelayMs?: number
  /**
   * Longest wait between attempts, in ms: the backoff never exceeds it, and a provider that asks
   * for a longer wait (`retryAfterMs`) is not retried — the turn ends with its error. At most
   * 2147483647 (about 24.8 days, a timer's longest wait). Default 60000.
   */
  maxDelayMs?: number
  /** The error codes that are retried. Default `['RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT', 'EMPTY_RESPONSE']`. */
  retryOn?: string[]
  /** Code only (not from a config file): the source of jitter, returning [0, 1). Default `Math.random`. */
  random?: () => number
}

/** The default of {@link Options.retryOn}: failures that a later attempt may not repeat. */
export const DEFAULT_RETRY_ON: readonly string[] = Object.freeze(['RATE_LIMIT', 'SERVER', 'TIMEOUT', 'TRANSPORT', 'EMPTY_RESPONSE'])

/**
 * The JSON Schema of {@link Options}. Bosun validates a config's options against it (ajv, compiled
 * once) before `setup` runs, so a bad config fails at startup with `PLUGIN_OPTIONS_INVALID`
 * naming each JSON path. Keep it in step with the interface above.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    maxAttempts: { type: 'integer', minimum: 1, maximum: 100, default: 4, description: 'Attempts per model request, the first included.' },
    minDelayMs: { type: 'integer', minimum: 0, default: 500, description: 'Shortest backoff between attempts, in ms.' },
    // A timer's longest wait: Node fires a longer one after 1 ms, so a longer Retry-After was retried at once.
    maxDelayMs: {
      type: 'integer',
      minimum: 0,
      maximum: 2_147_483_647,
      default: 60_000,
      description: 'Longest wait between attempts, in ms; a provider asking for longer is not retried.',
    },
    retryOn: {
      type: 'array',
      items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      uniqueItems: true,
      default: [...DEFAULT_RETRY_ON],
      description: 'Error codes to retry (RATE_LIMIT, SERVER, TIMEOUT, TRANSPORT, EMPTY_RESPONSE, INVALID_REQUEST, …).',
    },
    // Code only: a function (core's x-bosun-function), refused otherwise with the path and the
    // x-expected words before setup (PLUGIN_OPTIONS_INVALID from code, CONFIG_INVALID from a
    // config), as every other options mistake is. It was `not` any JSON type, which a bigint or a
    // symbol passes as well as a function (ajv's `type` fails all three).
    random: {
      'x-bosun-function': true,
      'x-expected': 'a function returning a number in [0, 1), given in code',
      description: 'Code only: the jitter source, a function returning a number in [0, 1).',
    },
  },
  // minDelayMs ≤ maxDelayMs, either one counted at its default when left out.
  'x-bosun-bounds': { minDelayMs: { maximum: 'maxDelayMs' } },
  additionalProperties: false,
}

/** {@link Options} with every default filled in. */
export interface RetryPolicy {
  maxAttempts: number
  minDelayMs: number
  maxDelayMs: number
  retryOn: ReadonlySet<string>
  random: () => number
}

/**
 * Fills the defaults. The schema has checked the options — `minDelayMs` ≤ `maxDelayMs` and a
 * function for `random` included — before `setup` runs, from code and from a config file alike.
 */
export function resolvePolicy(options: Options): RetryPolicy {
  const { maxAttempts = 4, minDelayMs = 500, maxDelayMs = 60_000, retryOn = DEFAULT_RETRY_ON, random = Math.random } = options
  return { maxAttempts, minDelayMs, maxDelayMs, retryOn: new Set(retryOn), random }
}
