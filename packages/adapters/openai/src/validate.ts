import { adapterOptionProblems, assertOptions } from '@bosun/core'
import { openaiOptionsSchema, type OpenAIOptions } from './options.js'

const EXAMPLE_URL = 'http://localhost:11434/v1'

/**
 * Checks the options of `openai()` against {@link openaiOptionsSchema} — the schema a config file's
 * options are checked against, so a mistake reads the same from code and from a config — then
 * what the schema cannot say (the base URL parses, the headers are ones fetch can send). Throws
 * `INVALID_ARGUMENT` listing every problem: `Invalid options for openai():\n  - $.temperature: must be a number from 0 to 2 (found 3)`.
 */
export function validateOptions(input: unknown): OpenAIOptions {
  return assertOptions<OpenAIOptions>(openaiOptionsSchema, input, 'openai()', { check: (options) => adapterOptionProblems(options, EXAMPLE_URL) })
}
