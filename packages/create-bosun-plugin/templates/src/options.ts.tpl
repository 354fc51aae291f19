import type { JsonSchema } from '@bosun/core'

/** The options of {{name}}, as a config file gives them: `['{{configName}}', { words: ['password'] }]`. */
export interface Options {
  /** A step is rejected when one of its messages contains one of these words. */
  words: string[]
  /** Match regardless of case. Default `true`. */
  ignoreCase?: boolean
}

/**
 * The JSON Schema of {@link Options}. Bosun validates the options against it (with ajv, compiled
 * once) before `setup` runs, so a mistake fails at startup naming each JSON path: `CONFIG_INVALID`
 * from a config file, `PLUGIN_OPTIONS_INVALID` from `createAgent`. `npm run build` writes it to
 * schema.json, which `bosun plugins info` and `add` read. Keep it in step with the interface above.
 */
export const optionsSchema: JsonSchema = {
  type: 'object',
  properties: {
    words: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description: 'A step is rejected when one of its messages contains one of these words.',
    },
    ignoreCase: { type: 'boolean', default: true, description: 'Match regardless of case.' },
  },
  required: ['words'],
  additionalProperties: false,
}
