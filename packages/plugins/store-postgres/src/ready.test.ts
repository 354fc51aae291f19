// ready(): what a server calls before it listens. The store connects on its first operation, so a
// host over a store it cannot use (a wrong password, no such database) listened and then failed
// every request; ready() makes that first connection — and the schema's checks — on demand.
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { SCHEMA_VERSION } from './schema.js'
import { postgresStore } from './store.js'
import { available, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — ready()', () => {
  const pg = usePostgres()

  it('connects and prepares the schema, before any session is made', async () => {
    const schema = pg.schema()
    const store = postgresStore({ url: pg.url(), schema })
    try {
      await store.ready()
      expect(await pg.sql(`SELECT version FROM "${schema}".bosun_schema`)).toEqual([{ version: SCHEMA_VERSION }])
      await store.ready()
      expect(await store.list()).toEqual([])
    } finally {
      await store.close()
    }
  })

  it('rejects with the first operation\'s STORE error for a wrong password, without the password, and tries again when called again', async () => {
    const url = new URL(pg.url())
    url.password = 'not-shown-secret'
    const store = postgresStore({ url: url.href, schema: pg.schema(), statementTimeoutMs: 10_000 })
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await store.ready().then(() => undefined, (e: unknown) => e)
        expect(BosunError.is(error, 'STORE')).toBe(true)
        expect((error as BosunError).message).toContain('(check the user and password in the URL)')
        expect((error as BosunError).message).not.toContain('not-shown-secret')
        expect((error as BosunError).details?.sqlState).toBe('28P01')
      }
    } finally {
      await store.close()
    }
  })

  it('refuses a schema of a newer layout, as the first operation would', async () => {
    const schema = pg.schema()
    await pg.sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".bosun_schema (version integer NOT NULL); INSERT INTO "${schema}".bosun_schema VALUES (${SCHEMA_VERSION + 1})`)
    const store = postgresStore({ url: pg.url(), schema })
    try {
      await expect(store.ready()).rejects.toMatchObject({ code: 'UNSUPPORTED_LOG_VERSION' })
    } finally {
      await store.close()
    }
  })
})
