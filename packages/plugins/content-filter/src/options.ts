import type { JsonSchema, UserMessage } from '@bosun/core'

/** What a rule does with what it matches. */
export type RuleAction = 'reject' | 'redact'

/** Where a rule looks: the input messages (default), the model's streamed text, or both. */
export type RuleScope = 'input' | 'output' | 'both'

/**
 * A custom predicate, from code only (a config in JSON or YAML cannot hold a function). It gets
 * the text of one text block of an input message and the message itself. Return `false` for no
 * match, `true` when the whole text matches, or the part of the text that matched (a `reject`
 * quotes it as the excerpt; a `redact` replaces every occurrence of it).
 */
export type RulePredicate = (text: string, message: UserMessage) => boolean | string

/**
 * One rule: an `id`, exactly one matcher (`pattern`, `keywords`, `maxLength` or `test`) and an
 * `action`.
 */
export interface Rule {
  /** Names the rule in rejections and events. Unique within the plugin's rules. */
  id: string
  /** A regular expression's source (`'\\b\\d{16}\\b'`), matched against the original text. */
  pattern?: string
  /** RegExp flags for `pattern` (`i`, `m`, `s`, `u`, `v`, `d`); `g` is implied, `y` is not allowed. */
  flags?: string
  /** Words or phrases, matched case- and accent-insensitively ("CAFÉ" matches "cafe"). */
  keywords?: string[]
  /**
   * With `keywords`: match whole words only (default `true`): "ass" does not match "class". A
   * keyword edge written in a script without spaces between words (Chinese, Japanese, Thai…)
   * matches anywhere.
   */
  wholeWords?: boolean
  /** The longest text allowed, in characters (UTF-16 code units, like `String.length`). */
  maxLength?: number
  /** A custom predicate (code only, input only): see {@link RulePredicate}. */
  test?: RulePredicate
  /** `reject` ends the turn `blocked` (input) or the stream with an error (output); `redact` rewrites. */
  action: RuleAction
  /**
   * What a `redact` puts in place of a match. Default `'[redacted]'`; for `maxLength`, what is
   * appended to the cut text, default `'[truncated]'`.
   */
  replacement?: string
  /** Default `'input'`. */
  scope?: RuleScope
}

/**
 * The options of the content-filter plugin, as a config file gives them:
 * `['content-filter', { rules: [{ id: 'card', pattern: '\\b\\d{16}\\b', action: 'redact' }] }]`.
 */
export interface Options {
  rules: Rule[]
  /**
   * Characters of the model's streamed text held back before they are passed on, so that a
   * `pattern` match split across chunks is still found whole. Default `64`, and always at least
   * twice the longest output keyword. A pattern match longer than this may be missed when it
   * spans chunks.
   */
  outputWindow?: number
}

/**
 * The JSON Schema of {@link Options}. Bosun validates a config's options against it (with ajv)
 * before `setup` runs, so a bad shape fails at startup with `PLUGIN_OPTIONS_INVALID` naming each
 * JSON path. Keep it in step with the interfaces above.
 *
 * What JSON Schema cannot check is checked in `setup`, still when the agent is built and before
 * any turn: that each `pattern` compiles with its `flags`, that ids are unique, and that `test`
 * is a function (JSON Schema has no function type, so the schema lets `test` through and setup
 * refuses anything else). Those errors name the JSON path too: `$.rules[2].pattern`.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    rules: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1 },
          pattern: { type: 'string', minLength: 1, description: 'A RegExp source, matched against the original text.' },
          flags: { type: 'string', pattern: '^[dgimsuv]*$', description: 'RegExp flags for pattern (g is implied).' },
          keywords: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
          wholeWords: { type: 'boolean', default: true },
          maxLength: { type: 'integer', minimum: 0 },
          test: { description: 'Code only: a function (text, message) => boolean | string. Checked in setup.' },
          action: { enum: ['reject', 'redact'] },
          replacement: { type: 'string' },
          scope: { enum: ['input', 'output', 'both'], default: 'input' },
        },
        required: ['id', 'action'],
        oneOf: [{ required: ['pattern'] }, { required: ['keywords'] }, { required: ['maxLength'] }, { required: ['test'] }],
        dependencies: { flags: ['pattern'], wholeWords: ['keywords'] },
        additionalProperties: false,
      },
    },
    outputWindow: { type: 'integer', minimum: 1, default: 64 },
  },
  required: ['rules'],
  additionalProperties: false,
}
