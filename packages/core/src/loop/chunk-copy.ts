import { copyJson, isFrozenJson, tryCopyJson } from '../json.js'
import type { ModelChunk } from '../model.js'

/**
 * The chunk as `assistant/chunk` logs it: a deep-frozen copy, refused (NOT_JSON, naming the path)
 * if it is not JSON. Exactly what `copyJson` makes, faster for the chunk nearly every delta is.
 *
 * A text delta shaped `{ type: 'text-delta', text: string }` — those two own keys, in that order, on
 * a plain object — is copied as an object literal of that shape. The general copy walks any
 * object's keys with keyed loads and stores, which are megamorphic across the log's many data
 * shapes, and adds each key to an empty object through a runtime call: ~1,000 instructions per
 * delta (callgrind), against ~150 here. Anything else, and a chunk that is already checked JSON
 * (the general copy returns it as it is), takes the general copy, so the result is the same.
 */
export function copyChunk(chunk: ModelChunk): ModelChunk {
  const text = plainTextDelta(chunk)
  if (text !== undefined) return Object.freeze({ type: 'text-delta', text })
  return tryCopyJson(chunk) ?? copyJson({ chunk }, 'Event "assistant/chunk" data').chunk
}

/** The text of a chunk that is exactly `{ type: 'text-delta', text: string }`; otherwise undefined. */
function plainTextDelta(chunk: unknown): string | undefined {
  if (typeof chunk !== 'object' || chunk === null || Object.getPrototypeOf(chunk) !== Object.prototype || isFrozenJson(chunk)) {
    return undefined
  }
  // for-in lists own enumerable keys in order, then inherited enumerable ones: any key but these
  // two, in this order, is left to the general copy. An own `text` after `type` makes both own
  // (own keys come first); an inherited one is the general copy's to refuse.
  let keys = 0
  for (const key in chunk) {
    if (key !== (keys === 0 ? 'type' : keys === 1 ? 'text' : undefined)) return undefined
    keys++
  }
  if (keys !== 2 || !Object.hasOwn(chunk, 'text') || (chunk as { type: unknown }).type !== 'text-delta') return undefined
  const text = (chunk as { text: unknown }).text
  return typeof text === 'string' ? text : undefined
}
