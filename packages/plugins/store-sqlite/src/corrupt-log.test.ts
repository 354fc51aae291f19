// CORRUPT_LOG names the file, the session, the seq and the column, and never quotes what is
// stored there (nor keeps the JSON parser's error, whose message does). Property: whatever the
// damage and the secret in it.
import { inspect } from 'node:util'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { sqliteStore } from './store.js'
import { event, header, rowKey, tempDatabase } from './testing/temp.js'

let file: string
let cleanup: () => Promise<void>
beforeAll(async () => ({ file, cleanup } = await tempDatabase()))
afterAll(() => cleanup())

/** Damages session `id` (two events stored) through a raw connection, with `secret` in the damage. */
const damages: { name: string; sql: string; seq?: number }[] = [
  { name: 'data that is raw text', sql: `UPDATE events SET data = @secret WHERE key = ${rowKey('@id', 1)}`, seq: 1 },
  { name: 'data cut inside the secret', sql: `UPDATE events SET data = substr(json_object('text', @secret), 1, 12) WHERE key = ${rowKey('@id', 0)}`, seq: 0 },
  { name: 'extra that is raw text', sql: `UPDATE events SET extra = @secret WHERE key = ${rowKey('@id', 0)}`, seq: 0 },
  { name: 'extra that is a JSON string', sql: `UPDATE events SET extra = json_quote(@secret) WHERE key = ${rowKey('@id', 1)}`, seq: 1 },
  { name: 'extra that repeats the seq', sql: `UPDATE events SET extra = json_object('seq', @secret) WHERE key = ${rowKey('@id', 1)}`, seq: 1 },
  { name: 'a type that is not text', sql: `UPDATE events SET type = CAST(@secret AS BLOB) WHERE key = ${rowKey('@id', 0)}`, seq: 0 },
  { name: 'a header that is raw text', sql: `UPDATE sessions SET header = @secret WHERE id = @id` },
  { name: 'a header whose id is the secret', sql: `UPDATE sessions SET header = json_set(header, '$.id', @secret) WHERE id = @id` },
  { name: 'a header whose version is the secret', sql: `UPDATE sessions SET header = json_set(header, '$.version', @secret) WHERE id = @id` },
]

it('every CORRUPT_LOG names the file, the session and the position, and quotes none of the damaged content (property)', async () => {
  const store = sqliteStore({ file })
  let n = 0
  const secrets = fc.tuple(fc.stringMatching(/^[A-Za-z0-9]{6,12}$/), fc.string({ maxLength: 12 })).map(([marker, rest]) => `S3CR3T-${marker}-${rest}`)
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...damages), secrets, async (damage, secret) => {
      const id = `c${n++}`
      const s = await store.create(header(id))
      s.writer.append(event(0))
      s.writer.append(event(1))
      await s.writer.close()
      const db = new Database(file)
      try {
        db.prepare(damage.sql).run({ secret, id })
      } finally {
        db.close()
      }
      const error = (await store.open(id).catch((e: unknown) => e)) as BosunError
      expect(BosunError.is(error, 'CORRUPT_LOG'), `${damage.name}: ${String(error)}`).toBe(true)
      expect(error.message).toContain(file)
      expect(error.message).toContain(`"${id}"`)
      expect(error.details).toMatchObject({ file, session: id, ...(damage.seq === undefined ? {} : { seq: damage.seq }) })
      expect(inspect(error, { depth: 8 }) + JSON.stringify(error.details), damage.name).not.toContain('S3CR3T')
    }),
    { numRuns: 90, examples: damages.map((damage) => [damage, 'S3CR3T-example-"quoted" {json} ü🚢']) },
  )
  await store.close()
})
