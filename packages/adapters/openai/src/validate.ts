import { adapterOptionProblems, compileOptionsValidator, ErrorCodes, optionsError } from '@bosun/core'
import { openaiOptionsSchema, type OpenAIOptions } from './options.js'

const EXAMPLE_URL = 'http://localhost:11434/v1'

/**
 * Checks the options of `openai()` against {@link openaiOptionsSchema} — the schema a config file's
 * options are checked against, so a mistake reads the same from code and from a config — then
 * what the schema cannot say (the base URL parses, the headers are ones fetch can send). Throws
 * `INVALID_ARGUMENT` listing every problem: `Invalid options for openai():\n  - $.temperature: must be <= 2 (found 3)`.
 */
export function validateOptions(input: unknown): OpenAIOptions {
  compileOptionsValidator(openaiOptionsSchema, openaiOptionsSchema, ErrorCodes.INVALID_ARGUMENT)(input, 'openai()')
  const problems = adapterOptionProblems(input as OpenAIOptions, EXAMPLE_URL)
  if (problems.length > 0) throw optionsError('openai()', problems, ErrorCodes.INVALID_ARGUMENT)
  return input as OpenAIOptions
}
