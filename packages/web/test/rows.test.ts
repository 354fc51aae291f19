import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Rows } from '../app/state/rows.js'

describe("Rows, the view's immutable list", () => {
  it('reads like the array it was built from, across trie levels (40,000 elements: 4 levels)', () => {
    const values = Array.from({ length: 40_000 }, (_, i) => i * 3)
    const rows = Rows.of(values)
    expect(rows.length).toBe(40_000)
    expect(values.every((value, i) => rows.get(i) === value)).toBe(true)
    expect(rows.toArray()).toEqual(values)
    expect([...rows]).toEqual(values)
    expect(rows.at(-1)).toBe(119_997)
    expect(rows.get(40_000)).toBeUndefined()
    expect(rows.get(-1)).toBeUndefined()
    expect(rows.filter((value) => value % 30_000 === 0)).toEqual([0, 30_000, 60_000, 90_000])
    expect(rows.some((value) => value === 3 * 33_000)).toBe(true)
    expect(rows.some((value) => value === 1)).toBe(false)
  })

  it('never changes a list handed out earlier, whatever is written after it in the same or a later batch', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(3000), fc.integer()), { maxLength: 200 }), fc.integer({ min: 0, max: 3000 }), (writes, start) => {
        const base = Rows.of(Array.from({ length: start }, (_, i) => i))
        let rows = base
        let model = Array.from({ length: start }, (_, i) => i)
        // Only what a batch hands out is kept: the list as it was when a batch ended.
        const earlier: [Rows<number>, number[]][] = []
        let owned = new Set<object>()
        for (const [newBatch, at, value] of writes) {
          if (newBatch) {
            earlier.push([rows, [...model]])
            owned = new Set()
          }
          if (at < model.length && value % 2 === 0) {
            rows = rows.set(at, value, owned)
            model[at] = value
          } else {
            rows = rows.push(value, owned)
            model.push(value)
          }
        }
        expect(rows.toArray()).toEqual(model)
        for (const [list, values] of earlier) expect(list.toArray()).toEqual(values)
        expect(base.toArray()).toEqual(Array.from({ length: start }, (_, i) => i))
      }),
      { numRuns: 60 },
    )
  })

  it('set past the end appends, filling the gap', () => {
    const rows = Rows.empty<number | undefined>().set(3, 7, new Set())
    expect(rows.toArray()).toEqual([undefined, undefined, undefined, 7])
  })

  it('answers undefined for what is not a list index, as an array does (a malformed event\'s turn)', () => {
    const rows = Rows.of([10, 11, 12])
    for (const index of [Number.NaN, undefined as unknown as number, 1.5, -0.5, Infinity]) expect(rows.get(index)).toBeUndefined()
    expect(rows.get('1' as unknown as number)).toBe(11)
    expect([rows.at(1.5), rows.at(-1.5), rows.at(Number.NaN)]).toEqual([11, 12, 10])
  })
})
