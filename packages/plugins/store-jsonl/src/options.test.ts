// jsonlStore() checks its options against jsonlStoreOptionsSchema, the schema a config file's are
// checked with: the same line for each mistake from code and from a config file.
import { describe, expect, it } from 'vitest'
import { expectCodeLines, expectConfigLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import definition, { jsonlStore } from './index.js'

const cases: OptionsCase[] = [
  [{}, '$.dir: is required'],
  [{ dir: '' }, '$.dir: must not be empty (found "")'],
  [{ dir: 7 }, '$.dir: must be a string (found 7)'],
  [{ dir: 'x', batchWindowMs: -1 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found -1)'],
  // A timer's longest wait: Node fires a longer one after 1 ms (the twin before the schema refused any unsafe integer).
  [{ dir: 'x', batchWindowMs: 2 ** 31 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found 2147483648)'],
  [{ dir: 'x', batchWindowMs: 1e300 }, '$.batchWindowMs: must be an integer from 0 to 2147483647 (found 1e+300)'],
  [{ dir: 'x', batchWindowMs: 1.5 }, '$.batchWindowMs: must be an integer (found 1.5)'],
  [{ dir: 'x', journal: 'yes' }, '$.journal: must be a boolean (found "yes")'],
  [{ dir: 'x', dri: 'y' }, '$.dri: unknown key "dri" — did you mean "dir"?'],
]

describe('jsonlStore() options', () => {
  it('from code: INVALID_ARGUMENT listing each problem in the words of the schema', () => {
    expectCodeLines(jsonlStore, 'jsonlStore()', cases)
    expect(() => jsonlStore('x' as never)).toThrow('Invalid options for jsonlStore():\n  - $: must be an object (found "x")')
    expect(() => jsonlStore({ dir: 'x', batchWindowMs: Number.POSITIVE_INFINITY })).toThrow('$.batchWindowMs: must be an integer (found Infinity)')
  })

  it('from a config file: the same line under the store entry\'s path', async () => {
    await expectConfigLines(definition, cases)
  })

  it('fs, which only code gives, is checked apart from the schema', () => {
    expect(() => jsonlStore({ dir: 'x', fs: {} as never })).toThrow(
      'Invalid options for jsonlStore():\n  - $.fs: must implement StoreFileSystem (open, readdir, mkdir, unlink) (found an object)',
    )
    // The schema still sees the rest.
    expect(() => jsonlStore({ dir: '', fs: {} as never })).toThrow('Invalid options for jsonlStore():\n  - $.dir: must not be empty (found "")')
  })
})
