import type { JsonValue } from '@bosun/core'
import { contentFilterNote } from './content-filter-note.js'
import { rateLimitNote } from './rate-limit-note.js'

/**
 * What `bosun run` and `bosun chat` say after "blocked by <plugin>:" — the plugin's metadata as
 * JSON, except for a refusal the CLI can put in words: step-limit's `max-steps` says the limit was
 * reached, that the work so far is kept, and how to raise the limit (the JSON alone read as a
 * failure with no way out); rate-limit's says which limit is used up and when to send again
 * (rate-limit-note.ts); content-filter's which rule the message broke, never a match that looks
 * like a credential (content-filter-note.ts). `--json` keeps the metadata as the plugin wrote it.
 * `bosun log` says the same, with `past` and `now` the time the turn ended (rate-limit's wait is
 * then told from that time, not from now).
 */
export function blockedNote(by: string, metadata: JsonValue, now = Date.now(), past = false): string {
  const said = by === 'rate-limit' ? rateLimitNote(metadata, now, past) : by === 'content-filter' ? contentFilterNote(metadata) : undefined
  if (said !== undefined) return said
  const maxSteps = by === 'step-limit' ? stepLimitReached(metadata) : undefined
  if (maxSteps === undefined) return JSON.stringify(metadata)
  return (
    `the turn reached its limit of ${maxSteps} step${maxSteps === 1 ? '' : 's'} (model calls) and was stopped; ` +
    'what it did is kept, so another message goes on from there. ' +
    `To allow more, raise maxSteps in the config: ["step-limit", { "maxSteps": ${maxSteps * 2} }]`
  )
}

/** The limit of step-limit's `{ reason: 'max-steps', maxSteps, step }`, if that is what `metadata` is. */
function stepLimitReached(metadata: JsonValue): number | undefined {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined
  const { reason, maxSteps } = metadata
  return reason === 'max-steps' && typeof maxSteps === 'number' && Number.isSafeInteger(maxSteps) && maxSteps > 0 ? maxSteps : undefined
}
