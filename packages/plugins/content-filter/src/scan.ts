import { looksLikeCredential } from '@bosun/core/config'
import type { Match, SpanRule } from './rules.js'

/** A match and the rule that made it. */
export interface Hit extends Match {
  rule: SpanRule
}

/**
 * The earliest match of any rule starting at or after `from`; on a tie, the rule listed first.
 * Matches are taken left to right and never overlap: text a redaction replaced is not looked at
 * again, and a match starting inside it is not considered.
 */
export function earliest(rules: readonly SpanRule[], text: string, from: number): Hit | undefined {
  let best: Hit | undefined
  for (const rule of rules) {
    const match = rule.first(text, from)
    if (match && (!best || match.start < best.start)) best = { ...match, rule }
  }
  return best
}

/** What a scan of a whole text found: the first rejecting match, or the text with redactions. */
export type ScanResult =
  | { kind: 'reject'; hit: Hit }
  | { kind: 'pass'; text: string; redacted: Map<string, number> }

/**
 * Scans a complete text left to right: the first match of a `reject` rule rejects it; matches
 * of `redact` rules are replaced by their rule's replacement. `redacted` counts replacements per
 * rule id.
 */
export function scanText(rules: readonly SpanRule[], text: string): ScanResult {
  const redacted = new Map<string, number>()
  let out = ''
  let cursor = 0
  for (let hit = earliest(rules, text, 0); hit; hit = earliest(rules, text, cursor)) {
    if (hit.rule.action === 'reject') return { kind: 'reject', hit }
    out += text.slice(cursor, hit.start) + hit.rule.replacement
    cursor = hit.end
    redacted.set(hit.rule.id, (redacted.get(hit.rule.id) ?? 0) + 1)
  }
  return { kind: 'pass', text: redacted.size === 0 ? text : out + text.slice(cursor), redacted }
}

/** What an excerpt says instead of a match that looks like a credential. */
export const CREDENTIAL_NOT_QUOTED = '[looks like a credential: not quoted]'

/**
 * The excerpt of text an output rule held back from the answer: quoted only for a keywords rule
 * (its words are in the config); a pattern's match or the text past a `maxLength` is described, not
 * quoted — it never reached the answer, and the error's details go to the log, the host's streams
 * and every UI.
 */
export function heldBackExcerpt(text: string, quotable: boolean): string {
  return quotable ? excerpt(text) : `[${[...text].length} characters held back: not quoted]`
}

/**
 * At most 40 characters of `text`, cut with `…`: enough to recognise a match in the log — unless
 * the text looks like a credential (the core's judge: a provider key, a token, a password in a
 * connection string). A rule made to catch keys holds the model's key back from the answer; its
 * excerpt goes into the log, the host's streams and every UI, and must not carry the key there.
 */
export function excerpt(text: string, max = 40): string {
  if (looksLikeCredential(text)) return CREDENTIAL_NOT_QUOTED
  const chars = [...text]
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text
}
