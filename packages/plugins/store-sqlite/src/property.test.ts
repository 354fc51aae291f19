import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Session } from '@bosun/core'
import { sqliteStore } from './store.js'
import { header, tempDatabase } from './testing/temp.js'

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary' }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value

describe('sqlite store — property', () => {
  it('random batches, flushed or written behind, read back exactly by another store', async () => {
    const { file, cleanup } = await tempDatabase()
    let n = 0
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ values: fc.array(json, { minLength: 1, maxLength: 6 }), flush: fc.boolean() }), { minLength: 1, maxLength: 5 }),
          fc.constantFrom(0, 1, 4),
          async (batches, batchWindowMs) => {
            const id = `prop-${n++}`
            const store = sqliteStore({ file, batchWindowMs })
            const stored = await store.create(header(id))
            const session = new Session(stored.header, stored.events, { writer: stored.writer, now: () => 1_700_000_000_123.5 })
            for (const { values, flush } of batches) {
              for (const value of values) session.append('test/value', { value: value as never })
              if (flush) await session.flush()
              else await new Promise((r) => setTimeout(r, batchWindowMs))
            }
            await store.close()
            const other = sqliteStore({ file })
            const opened = await other.open(id)
            expect(JSON.stringify(opened?.header)).toBe(JSON.stringify(session.header))
            expect(JSON.stringify(opened?.events)).toBe(JSON.stringify(session.events))
            await other.close()
          },
        ),
        { numRuns: 40 },
      )
    } finally {
      await cleanup()
    }
  })
})
