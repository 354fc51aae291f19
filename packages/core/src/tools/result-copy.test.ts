// The logged copy of a tool result's content: the fast path for text-only content must give
// exactly what the general JSON copy gives (keys, order, values, deep-frozen), or step aside.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { copyJson, toFrozenJson } from '../json.js'
import { copyTextContent } from './result-copy.js'

const general = (content: unknown) => copyJson({ content }, 'Event "tool/result" data').content

function deepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(deepFrozen)
}

/** Same JSON text, same keys in order at every level, deep-frozen, detached from the input. */
function expectSameCopy(content: unknown[]): void {
  const copied = copyTextContent(content)
  expect(copied).toBeDefined()
  expect(copied).not.toBe(content)
  expect(JSON.stringify(copied)).toBe(JSON.stringify(general(content)))
  expect(copied!.map((block) => Object.keys(block))).toEqual((general(content) as object[]).map((block) => Object.keys(block)))
  expect(deepFrozen(copied)).toBe(true)
}

describe('copyTextContent', () => {
  it('copies text blocks to frozen { type, text } literals in a frozen array', () => {
    expectSameCopy([{ type: 'text', text: 'value of k' }])
    expectSameCopy([{ type: 'text', text: '' }, { type: 'text', text: 'two' }])
    expectSameCopy([])
  })

  it('steps aside (undefined) for anything the general copy must judge', () => {
    const sparse: unknown[] = []
    sparse[1] = { type: 'text', text: 'x' }
    class Blocks extends Array {}
    const cases: unknown[] = [
      undefined, 'text', { type: 'text', text: 'not an array' },
      [{ text: 'b', type: 'text' }], [{ type: 'text', text: 'c', extra: 1 }], [{ type: 'text', text: 'd', dropped: undefined }],
      [{ type: 'image', text: 'e' }], [{ type: 'text', text: 5 }], [Object.assign(Object.create(null), { type: 'text', text: 'f' })],
      [Object.assign(Object.create({ inherited: 1 }), { type: 'text', text: 'g' })], sparse, Blocks.from([{ type: 'text', text: 'h' }]),
      toFrozenJson([{ type: 'text', text: 'checked' }], 'content'), [toFrozenJson({ type: 'text', text: 'checked block' }, 'block')],
    ]
    for (const content of cases) expect(copyTextContent(content)).toBeUndefined()
  })

  it('is the general copy whenever it answers, for arbitrary blocks (property)', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string() }),
      fc.record({ type: fc.constantFrom('text', 'image'), text: fc.oneof(fc.string(), fc.integer()) }),
      fc.dictionary(fc.constantFrom('type', 'text', 'data'), fc.oneof(fc.constant('text'), fc.string())),
    )
    fc.assert(fc.property(fc.array(block, { maxLength: 4 }), (content) => {
      const copied = copyTextContent(content)
      const textOnly = content.every((b) =>
        Object.getPrototypeOf(b) === Object.prototype && Object.keys(b).join() === 'type,text' && b.type === 'text' && typeof b.text === 'string')
      expect(copied !== undefined).toBe(textOnly)
      if (copied !== undefined) expectSameCopy(content)
    }))
  })
})
