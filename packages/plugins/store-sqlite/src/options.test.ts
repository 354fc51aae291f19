// sqliteStore() checks its options against sqliteStoreOptionsSchema, the schema a config file's
// are checked with: the same line for each mistake from code and from a config file.
import { describe, expect, it } from 'vitest'
import { expectCodeLines, expectConfigLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import definition, { sqliteStore } from './index.js'

const cases: OptionsCase[] = [
  [{}, '$.file: is required'],
  [{ file: '' }, '$.file: must not be empty (found "")'],
  [{ file: ['a'] }, '$.file: must be a string (found ["a"])'],
  [{ file: 'x', batchWindowMs: -1 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found -1)'],
  // A timer's longest wait: Node fires a longer one after 1 ms (the twin before the schema refused any unsafe integer).
  [{ file: 'x', batchWindowMs: 2 ** 31 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found 2147483648)'],
  [{ file: 'x', batchWindowMs: 1e300 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found 1e+300)'],
  [{ file: 'x', batchWindowMs: 1.5 }, '$.batchWindowMs: must be an integer (found 1.5)'],
  [{ file: 'x', batch: 1 }, '$.batch: unknown key "batch" — did you mean "batchWindowMs"?'],
]

describe('sqliteStore() options', () => {
  it('from code: INVALID_ARGUMENT listing each problem in the words of the schema', () => {
    expectCodeLines(sqliteStore, 'sqliteStore()', cases)
    expect(() => sqliteStore(null as never)).toThrow('Invalid options for sqliteStore():\n  - $: must be an object (found null)')
    expect(() => sqliteStore({ file: 'x', batchWindowMs: Number.NaN })).toThrow('$.batchWindowMs: must be an integer (found NaN)')
  })

  it('from code, values JSON cannot hold are shown as what they are (a bigint\'s 4n was shown as 4, a symbol by its description)', () => {
    expect(() => sqliteStore({ file: 'x', batchWindowMs: 4n as never })).toThrow('Invalid options for sqliteStore():\n  - $.batchWindowMs: must be an integer (found the bigint 4n)')
    expect(() => sqliteStore({ file: Symbol('db.sqlite') as never })).toThrow('Invalid options for sqliteStore():\n  - $.file: must be a string (found a symbol)')
  })

  it('from a config file: the same line under the store entry\'s path', async () => {
    await expectConfigLines(definition, cases)
  })
})
