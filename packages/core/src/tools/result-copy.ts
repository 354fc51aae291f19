import { isFrozenJson } from '../json.js'
import type { ContentBlock } from '../session/messages.js'

/**
 * A tool result's `content` as `tool/result` logs it, when every block is exactly
 * `{ type: 'text', text: string }` (what a tool that returns a string gets, and every error
 * result): a frozen array of frozen `{ type, text }` literals — what the general JSON copy makes
 * of it (keys, order, values, frozen), without its keyed stores, which are megamorphic across the
 * log's many data shapes. Anything else (images, other keys, an array that is not plain, checked
 * JSON) gives undefined: the caller appends through the general copy.
 */
export function copyTextContent(content: unknown): ContentBlock[] | undefined {
  if (!Array.isArray(content) || Object.getPrototypeOf(content) !== Array.prototype || isFrozenJson(content)) return undefined
  const length = content.length
  const blocks: ContentBlock[] = new Array(length)
  for (let i = 0; i < length; i++) {
    if (!(i in content)) return undefined
    const text = plainTypedText(content[i], 'text')
    if (text === undefined) return undefined
    blocks[i] = Object.freeze({ type: 'text', text })
  }
  return Object.freeze(blocks) as ContentBlock[]
}

/**
 * The text of a value that is exactly `{ type, text: string }` with this `type` — those two own
 * keys, in that order, on a plain object that is not already checked JSON; otherwise undefined.
 * Such a value's general JSON copy is `{ type, text }` with the same strings, which a caller may
 * build as a literal of that shape (monomorphic stores) instead.
 */
export function plainTypedText(value: unknown, type: string): string | undefined {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype || isFrozenJson(value)) {
    return undefined
  }
  // for-in lists own enumerable keys in order, then inherited enumerable ones: any key but these
  // two, in this order, is left to the general copy. An own `text` after `type` makes both own
  // (own keys come first); an inherited one is the general copy's to refuse.
  let keys = 0
  for (const key in value) {
    if (key !== (keys === 0 ? 'type' : keys === 1 ? 'text' : undefined)) return undefined
    keys++
  }
  if (keys !== 2 || !Object.hasOwn(value, 'text') || (value as { type: unknown }).type !== type) return undefined
  const text = (value as { text: unknown }).text
  return typeof text === 'string' ? text : undefined
}
