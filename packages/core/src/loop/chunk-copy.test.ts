// The logged copy of a model chunk: the fast path for plain text deltas must give exactly what the
// general JSON copy gives (keys, their order, values, frozen, the same object back for checked JSON).
import { describe, expect, it } from 'vitest'
import { copyJson, toFrozenJson } from '../json.js'
import type { ModelChunk } from '../model.js'
import { copyChunk } from './chunk-copy.js'

const general = (chunk: unknown) => copyJson({ chunk }, 'Event "assistant/chunk" data').chunk

/** Same JSON text, same own keys in order, frozen, and a different object from the input. */
function expectSameCopy(chunk: unknown): void {
  const copied = copyChunk(chunk as ModelChunk)
  expect(copied).not.toBe(chunk)
  expect(JSON.stringify(copied)).toBe(JSON.stringify(general(chunk)))
  expect(Object.keys(copied)).toEqual(Object.keys(general(chunk) as object))
  expect(Object.isFrozen(copied)).toBe(true)
}

describe('copyChunk', () => {
  it('copies a plain text delta to a frozen { type, text }, detached from the adapter’s object', () => {
    const chunk = { type: 'text-delta', text: 'hello' }
    expectSameCopy(chunk)
    chunk.text = 'changed later'
    expect(copyChunk({ type: 'text-delta', text: 'a' })).toEqual({ type: 'text-delta', text: 'a' })
  })

  it('gives what the general copy gives for every other shape: other order, extra keys, undefined, a null prototype, other chunk types', () => {
    expectSameCopy({ text: 'b', type: 'text-delta' })
    expectSameCopy({ type: 'text-delta', text: 'c', extra: 1 })
    expectSameCopy({ type: 'text-delta', text: 'd', dropped: undefined })
    expectSameCopy(Object.assign(Object.create(null), { type: 'text-delta', text: 'e' }))
    expectSameCopy({ type: 'reasoning-delta', text: 'f', signature: 's' })
    expectSameCopy({ type: 'tool-call-delta', index: 0, id: 'call_1', name: 'lookup', argumentsDelta: '{}' })
    expectSameCopy({ type: 'usage', usage: { inputTokens: 1, outputTokens: -0 } })
    expectSameCopy({ type: 'finish', reason: 'stop' })
  })

  it('reads a getter once and copies its value, as the general copy does', () => {
    let reads = 0
    const chunk = { type: 'text-delta', get text() { reads++; return 'g' } }
    expect(copyChunk(chunk as ModelChunk)).toEqual({ type: 'text-delta', text: 'g' })
    expect(reads).toBe(1)
  })

  it('returns checked JSON as it is, like the general copy', () => {
    const checked = toFrozenJson({ type: 'text-delta', text: 'h' }, 'chunk')
    expect(copyChunk(checked as ModelChunk)).toBe(checked)
    expect(general(checked)).toBe(checked)
  })

  it('copies a text delta the adapter froze itself (frozen is not checked JSON), and one without a type goes the general way', () => {
    expectSameCopy(Object.freeze({ type: 'text-delta', text: 'frozen' }))
    expectSameCopy({ text: 'no type' })
    const inheritedType = Object.assign(Object.create({ type: 'text-delta' }) as object, { text: 'i' })
    expect(() => copyChunk(inheritedType as ModelChunk)).toThrow(/not JSON|plain object/)
  })

  it('does not take an enumerable `text` on Object.prototype for the chunk’s own', () => {
    Object.defineProperty(Object.prototype, 'text', { value: 'polluted', enumerable: true, configurable: true, writable: true })
    try {
      expectSameCopy({ type: 'text-delta' })
      expect(Object.hasOwn(copyChunk({ type: 'text-delta' } as ModelChunk), 'text')).toBe(false)
    } finally {
      delete (Object.prototype as { text?: unknown }).text
    }
  })

  it('leaves a text delta whose text is not a string, or an inherited text, to the general copy', () => {
    expectSameCopy({ type: 'text-delta', text: 5 })
    const inherited = Object.create({ text: 'inherited' }) as object
    expect(() => copyChunk(Object.assign(inherited, { type: 'text-delta' }) as ModelChunk)).toThrow(/not JSON|plain object/)
    expect(() => copyChunk({ type: 'text-delta', text: () => 'x' } as unknown as ModelChunk)).toThrow(/assistant\/chunk.*function/s)
  })
})
