import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { SCHEMA_VERSION } from './schema.js'
import { postgresStore } from './store.js'
import { available, event, header, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — damage and versions', () => {
  const pg = usePostgres()
  const written = async (schema: string, id: string, count: number) => {
    const store = postgresStore({ url: pg.url(), schema })
    const s = await store.create(header(id))
    for (let i = 0; i < count; i++) s.writer.append(event(i, { secret: `conversation ${i}` }))
    await s.writer.close()
    await store.close()
  }
  const openError = async (schema: string, id: string) => {
    const store = postgresStore({ url: pg.url(), schema })
    const error = await store.open(id).catch((e: unknown) => e)
    await store.close()
    return error as BosunError
  }

  it('a lost event is CORRUPT_LOG naming the session and the missing seq', async () => {
    const schema = pg.schema()
    await written(schema, 'gap', 5)
    await pg.sql(`DELETE FROM "${schema}".session_events WHERE session_id = 'gap' AND seq = 2`)
    const error = await openError(schema, 'gap')
    expect(BosunError.is(error, 'CORRUPT_LOG')).toBe(true)
    expect(error.details).toMatchObject({ session: 'gap', seq: 2, found: 3 })
  })

  it('an event whose data is not JSON is CORRUPT_LOG naming seq and column, never the content', async () => {
    const schema = pg.schema()
    await written(schema, 'bad', 3)
    await pg.sql(`UPDATE "${schema}".session_events SET data = '{"secret": "conversation 1"' WHERE session_id = 'bad' AND seq = 1`)
    const error = await openError(schema, 'bad')
    expect(BosunError.is(error, 'CORRUPT_LOG')).toBe(true)
    expect(error.details).toMatchObject({ session: 'bad', seq: 1, column: 'data' })
    expect(error.message).not.toContain('conversation')
    expect(error.cause).toBeUndefined()
  })

  it('a schema written by a newer layout is refused with UNSUPPORTED_LOG_VERSION; the version table holds this layout', async () => {
    const schema = pg.schema()
    await written(schema, 'v', 1)
    expect(await pg.sql(`SELECT version FROM "${schema}".bosun_schema`)).toEqual([{ version: SCHEMA_VERSION }])
    await pg.sql(`UPDATE "${schema}".bosun_schema SET version = ${SCHEMA_VERSION + 1}`)
    const error = await openError(schema, 'v')
    expect(BosunError.is(error, 'UNSUPPORTED_LOG_VERSION')).toBe(true)
    expect(error.details).toMatchObject({ version: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION })
  })

  it('hosts starting together on an empty schema create the tables once', async () => {
    const schema = pg.schema()
    const stores = [1, 2, 3, 4].map(() => postgresStore({ url: pg.url(), schema, poolSize: 1 }))
    expect(await Promise.all(stores.map((s) => s.list()))).toEqual([[], [], [], []])
    expect(await pg.sql(`SELECT version FROM "${schema}".bosun_schema`)).toEqual([{ version: SCHEMA_VERSION }])
    await Promise.all(stores.map((s) => s.close()))
  })
})
