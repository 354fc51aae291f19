import type { JsonSchema } from '@bosun/core'

/** Options of the word-limit plugin. */
export interface WordLimitOptions {
  /** Most words a message may have. */
  maxWords: number
  /** `reject` ends the turn `blocked`; `truncate` lets the message enter cut to `maxWords`. Default `reject`. */
  action?: 'reject' | 'truncate'
}

/** The JSON Schema of {@link WordLimitOptions}, checked before `setup` runs. */
export const wordLimitSchema: JsonSchema = {
  type: 'object',
  properties: {
    maxWords: { type: 'integer', minimum: 1, description: 'Most words a message may have.' },
    action: { enum: ['reject', 'truncate'], description: 'What to do with a longer message. Default reject.' },
  },
  required: ['maxWords'],
  additionalProperties: false,
}
