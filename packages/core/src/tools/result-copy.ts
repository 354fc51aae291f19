import { isFrozenJson, isFrozenJsonChunk } from '../json.js'
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
 *
 * Called for every model chunk (copyChunk), so its checks are the ones V8 answers cheapest: the
 * own-key test is `hasOwnProperty.call` on the for-in's key, which V8 answers from the enum cache
 * (`Object.hasOwn(value, 'text')` after the loop was a builtin call, ~96 instructions a delta), and
 * the checked-JSON test has an inline cache of its own (`isFrozenJsonChunk`: the shared one sees
 * every copied value's shape and is megamorphic, ~100 instructions a delta).
 */
export function plainTypedText(value: unknown, type: string): string | undefined {
  // `'type' in` first: it has no side effect on an ordinary object, and its inline cache gives V8
  // the value's map, from which it folds the prototype read to a constant (otherwise a runtime
  // call, ~130 instructions a delta). A value without `type` is the general copy's anyway.
  if (typeof value !== 'object' || value === null || !('type' in value) || Object.getPrototypeOf(value) !== Object.prototype) return undefined
  // for-in lists own enumerable keys in order, then inherited enumerable ones: any key but these
  // two, in this order, or an inherited one, is left to the general copy (which refuses the latter).
  let keys = 0
  for (const key in value) {
    if (key !== (keys === 0 ? 'type' : keys === 1 ? 'text' : undefined) || !hasOwnProperty.call(value, key)) return undefined
    keys++
  }
  const typed = value as { type: unknown; text: unknown }
  if (keys !== 2 || typed.type !== type) return undefined
  const text = typed.text
  if (typeof text !== 'string') return undefined
  // Checked JSON is the general copy's to return as it is (the same object).
  return isFrozenJsonChunk(value) ? undefined : text
}

const hasOwnProperty = Object.prototype.hasOwnProperty
