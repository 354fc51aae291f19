import { copyJson, tryCopyJson } from '../json.js'
import type { ModelChunk } from '../model.js'
import { plainTypedText } from '../tools/result-copy.js'

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
  return plainTypedText(chunk, 'text-delta')
}
