import type { JsonValue } from '@bosun/core'
import { oneLine } from './output.js'
import { looksSecret } from './redact.js'

/**
 * The plugin's excerpt for a match that looks like a credential (its `CREDENTIAL_NOT_QUOTED`).
 * Not imported: the plugin's entry loads its options validator, which `bosun run` does not load
 * (start.test.ts). content-filter-block.test.ts fails if the two drift apart.
 */
const CREDENTIAL_NOT_QUOTED = '[looks like a credential: not quoted]'

/**
 * What the content-filter plugin's rejection of the input means, in a sentence: which rule the
 * message broke, and what to do. Its metadata as JSON quoted the match as it was — for a rule
 * made to catch keys, the key itself, on the terminal (and in whatever records it): a match that
 * looks like a credential is not shown. The log keeps the plugin's metadata (`bosun log`,
 * `--json`). Undefined when `metadata` is not a content-filter input rejection.
 */
export function contentFilterNote(metadata: JsonValue): string | undefined {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined
  const { rule, excerpt, messageId, length, maxLength } = metadata
  if (typeof rule !== 'string' || typeof excerpt !== 'string' || typeof messageId !== 'string') return undefined
  const named = `the rule ${JSON.stringify(rule)}`
  if (typeof length === 'number' && typeof maxLength === 'number') {
    return `the message is ${length} characters long, over the ${maxLength} ${named} allows, so it did not run; send a shorter one.`
  }
  // The plugin no longer quotes a match that looks like a credential; older logs still may.
  const match = excerpt === CREDENTIAL_NOT_QUOTED || looksSecret('', excerpt) ? 'what matched looks like a credential, so it is not shown here' : `it matched ${JSON.stringify(oneLine(excerpt, 60))}`
  return `the message broke ${named} (${match}), so it did not run; send it again without that.`
}
