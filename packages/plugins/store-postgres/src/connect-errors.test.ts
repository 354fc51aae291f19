// The first errors a new user of the store meets — nothing listening at the URL, a wrong password,
// a database that does not exist, a user that may not create the schema, a schema that holds
// another application's tables — say what to check, without the URL's password.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, usePostgres } from './testing/postgres.js'

/**
 * A port nothing can listen on (binding port 0 asks for any free port), so a connection to it is
 * refused; a port a server got and closed again could be taken by another process meanwhile.
 */
const REFUSED_PORT = 0

async function failure(url: string, schema?: string): Promise<BosunError> {
  const store = postgresStore({ url, statementTimeoutMs: 10_000, ...(schema === undefined ? {} : { schema }) })
  try {
    const error = await store.list().then(() => undefined, (e: unknown) => e)
    expect(BosunError.is(error, 'STORE')).toBe(true)
    return error as BosunError
  } finally {
    await store.close()
  }
}

describe.skipIf(!available)('postgres store — connection errors say what to check', () => {
  const pg = usePostgres()

  it('nothing listening at the URL: check that PostgreSQL runs there', async () => {
    const error = await failure(`postgres://bosun:not-shown-secret@127.0.0.1:${REFUSED_PORT}/postgres`)
    expect(error.message).toContain('ECONNREFUSED')
    expect(error.message).toContain('(nothing accepts connections there: check that PostgreSQL runs at that host and port, and the URL)')
    expect(error.message).not.toContain('not-shown-secret')
  })

  // The cluster's own URL, with one part wrong.
  const wrongParts = [
    { what: 'a wrong password: check the user and password in the URL', change: (url: URL) => (url.password = 'not-shown-secret'), hint: '(check the user and password in the URL)' },
    { what: 'a database that does not exist: create it, or name one that does', change: (url: URL) => (url.pathname = '/no_such_database'), hint: '(create the database, or name one that exists in the URL)' },
  ]
  for (const { what, change, hint } of wrongParts) {
    it(what, async () => {
      const url = new URL(pg.url())
      change(url)
      const error = await failure(url.href)
      expect(error.message).toContain(hint)
      expect(error.message).not.toContain(url.password)
    })
  }

  it('a schema that holds another application\'s tables of the same names: name a schema of the store\'s own', async () => {
    const schema = pg.schema()
    await pg.sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".sessions (id integer PRIMARY KEY, user_name text)`)
    const error = await failure(pg.url(), schema)
    expect(error.message).toContain(`schema "${schema}" already holds "sessions" but no layout version of this store`)
    expect(error.message).toContain('Name a schema of the store\'s own with the "schema" option')
    // Nothing of the store's is left beside the other application's table (the prepare's transaction rolled back).
    const tables = await pg.sql<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema])
    expect(tables.map((row) => row.name)).toEqual(['sessions'])
  })

  it('a user that may not create the schema: grant it CREATE, or make the schema for it', async (context) => {
    const role = `weak_${randomBytes(4).toString('hex')}`
    const password = randomBytes(12).toString('hex')
    const made = await pg.sql(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`).then(() => true, () => false)
    if (!made) return context.skip('BOSUN_PG_URL\'s user may not create roles')
    try {
      const url = new URL(pg.url())
      url.username = role
      url.password = password
      const error = await failure(url.href, pg.schema())
      expect(error.details?.sqlState).toBe('42501')
      expect(error.message).toContain('permission denied')
      expect(error.message).toContain('(the user in the URL lacks a privilege: the store creates its schema and tables on first use, so grant it CREATE on the database')
      expect(error.message).not.toContain(password)
    } finally {
      await pg.sql(`DROP ROLE ${role}`)
    }
  })
})
