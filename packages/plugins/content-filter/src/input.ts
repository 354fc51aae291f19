import { createUserMessage, messageText, type ContentBlock, type UserMessage } from '@bosun/core'
import type { CompiledRule, LengthRule, SpanRule, TestRule } from './rules.js'
import { excerpt, scanText } from './scan.js'

/**
 * The `metadata` of an input rejection (and of `turn/end {kind: 'blocked'}`): which rule, which
 * message, and a short excerpt of what matched — enough to read the decision from the log alone.
 */
export type InputRejection = {
  rule: string
  messageId: string
  /** At most 40 characters of the match (for `maxLength`, of the start of the message). */
  excerpt: string
  /** For `maxLength`: the message's length and the limit. */
  length?: number
  maxLength?: number
}

/** What the input rules made of one message. */
export type InputVerdict =
  | { kind: 'reject'; metadata: InputRejection }
  | { kind: 'enter'; message: UserMessage; redacted: Map<string, number> }

/** The input rules, by kind, in the order they judge a message. */
export interface InputRules {
  spans: SpanRule[]
  tests: TestRule[]
  lengths: LengthRule[]
}

export function inputRules(rules: readonly CompiledRule[]): InputRules {
  const input = rules.filter((rule) => rule.input)
  return {
    spans: input.filter((rule): rule is SpanRule => rule.kind === 'span'),
    tests: input.filter((rule): rule is TestRule => rule.kind === 'test'),
    lengths: input.filter((rule): rule is LengthRule => rule.kind === 'length'),
  }
}

/**
 * Judges one input message. Each text block is scanned left to right by the `pattern` and
 * `keywords` rules, then given to each `test` predicate; then `maxLength` rules judge the length
 * of the whole text as redacted so far. The first `reject` wins; redactions accumulate. Images
 * pass untouched.
 *
 * A redacted message is rebuilt with `createUserMessage` under the same `id` and `source`, so it
 * is still the message the user sent as far as receipts, UIs and per-source policies go.
 */
export function judgeMessage(message: UserMessage, rules: InputRules): InputVerdict {
  const redacted = new Map<string, number>()
  const count = (rule: string, n = 1) => redacted.set(rule, (redacted.get(rule) ?? 0) + n)
  const reject = (rule: string, text: string, extra: Partial<InputRejection> = {}): InputVerdict => ({
    kind: 'reject',
    metadata: { rule, messageId: message.id, excerpt: excerpt(text), ...extra },
  })
  let blocks: ContentBlock[] = [...message.content]

  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!
    if (block.type !== 'text') continue
    let text = block.text
    const scan = scanText(rules.spans, text)
    if (scan.kind === 'reject') return reject(scan.hit.rule.id, text.slice(scan.hit.start, scan.hit.end))
    for (const [rule, n] of scan.redacted) count(rule, n)
    text = scan.text
    for (const rule of rules.tests) {
      const found = rule.test(text, message)
      if (found === false || found === '') continue
      if (rule.action === 'reject') return reject(rule.id, found === true ? text : found)
      const parts = found === true ? [text, ''] : text.split(found)
      count(rule.id, parts.length - 1)
      text = found === true ? rule.replacement : parts.join(rule.replacement)
    }
    if (text !== block.text) blocks[i] = { type: 'text', text }
  }

  for (const rule of rules.lengths) {
    const text = messageText({ content: blocks })
    if (text.length <= rule.maxLength) continue
    if (rule.action === 'reject') return reject(rule.id, text, { length: text.length, maxLength: rule.maxLength })
    blocks = truncate(blocks, rule.maxLength, rule.replacement)
    count(rule.id)
  }

  if (redacted.size === 0) return { kind: 'enter', message, redacted }
  return { kind: 'enter', message: createUserMessage(blocks, { id: message.id, source: message.source }), redacted }
}

/** Keeps the first `max` characters of text (across text blocks), then `replacement`; images stay. */
function truncate(blocks: readonly ContentBlock[], max: number, replacement: string): ContentBlock[] {
  let budget = max
  const out: ContentBlock[] = []
  for (const block of blocks) {
    if (block.type !== 'text') out.push(block)
    else if (budget > block.text.length) {
      out.push(block)
      budget -= block.text.length
    } else if (budget >= 0) {
      const cut = isHighSurrogate(block.text.charCodeAt(budget - 1)) ? budget - 1 : budget // never split a pair
      out.push({ type: 'text', text: block.text.slice(0, cut) + replacement })
      budget = -1 // everything after the cut is dropped
    }
  }
  return out
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
