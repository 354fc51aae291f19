// The view's lists as immutable tries (app/state/rows.ts) against plain arrays: random batches of
// push / set / set past the end (with a fill), every read the components use compared for the
// final list and for each list handed out at a batch's end; and Rows.get with an index an array
// would not answer (NaN, undefined, a fraction), as `Draft.turn` may pass from an event's data.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Rows } from '../app/state/rows.js'

type Op = { kind: 'push'; value: number } | { kind: 'set'; at: number; value: number } | { kind: 'batch' }

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer().map((value) => ({ kind: 'push' as const, value })) },
  { weight: 3, arbitrary: fc.tuple(fc.nat(2200), fc.integer()).map(([at, value]) => ({ kind: 'set' as const, at, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'batch' as const }) },
)

function sameAsArray(rows: Rows<number | undefined>, model: (number | undefined)[]): void {
  expect(rows.length).toBe(model.length)
  expect(rows.toArray()).toEqual(model)
  expect([...rows]).toEqual(model)
  for (const index of [0, 1, 31, 32, 33, 1023, 1024, 1025, model.length - 1, model.length, -1]) {
    expect(rows.get(index)).toBe(index >= 0 ? model[index] : undefined)
    expect(rows.at(index)).toBe(model.at(index))
    expect(rows.at(-index - 1)).toBe(model.at(-index - 1))
  }
  const odd = (value: number | undefined): boolean => value !== undefined && value % 2 !== 0
  expect(rows.filter(odd)).toEqual(model.filter(odd))
  expect(rows.filter((_, index) => index % 97 === 0)).toEqual(model.filter((_, index) => index % 97 === 0))
  expect(rows.some(odd)).toBe(model.some(odd))
}

describe('Rows against a plain array (review)', () => {
  it('reads the same after random pushes, sets and sets past the end, in batches; earlier lists unchanged', () => {
    fc.assert(
      fc.property(fc.nat(1100), fc.array(op, { maxLength: 300 }), (start, ops) => {
        let owned = new Set<object>()
        let rows: Rows<number | undefined> = Rows.of(Array.from({ length: start }, (_, i) => i))
        let model: (number | undefined)[] = Array.from({ length: start }, (_, i) => i)
        const handedOut: [Rows<number | undefined>, (number | undefined)[]][] = []
        for (const step of ops) {
          if (step.kind === 'batch') {
            handedOut.push([rows, [...model]])
            owned = new Set()
          } else if (step.kind === 'push') {
            rows = rows.push(step.value, owned)
            model.push(step.value)
          } else {
            rows = rows.set(step.at, step.value, owned, undefined)
            while (model.length < step.at) model.push(undefined)
            model[step.at] = step.value
          }
        }
        sameAsArray(rows, model)
        for (const [list, values] of handedOut) sameAsArray(list, values)
      }),
      { numRuns: 80 },
    )
  })

  it('answers undefined for an index that is not a list index, as an array does', () => {
    const rows = Rows.of([10, 11, 12])
    const array = [10, 11, 12]
    for (const index of [Number.NaN, undefined as unknown as number, 1.5, '1' as unknown as number]) {
      expect(rows.get(index)).toBe(array[index as number])
    }
  })
})
