import { describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain .mjs helper of the benchmark scripts, without types
import { cachegrindTotals, dataMisses } from './lib/cachegrind.mjs'

const output = `desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         1048576 B, 64 B, 16-way associative
cmd: node concurrency-child.mjs {}
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw 
fl=x.js
fn=f
1 5 0 0 2 1 0 0 0 0
summary: 4602680416 39126811 1912931 1325522366 39031672 7001173 683660315 8930242 5068690
`

describe('cachegrind output (ab-core.mjs --cachesim)', () => {
  it('names the summary by the events line', () => {
    const totals = cachegrindTotals(output)
    expect(totals.Ir).toBe(4602680416)
    expect(totals.D1mw).toBe(8930242)
    expect(dataMisses(totals)).toEqual({ d1: 39031672 + 8930242, ll: 7001173 + 5068690 })
  })

  it('refuses a file without its summary (a run that did not finish)', () => {
    expect(() => cachegrindTotals(output.replace(/^summary:.*$/m, ''))).toThrow(/summary/)
  })
})
