// The first errors a new user of the store meets — nothing listening at the URL, a wrong password,
// a database that does not exist — say what to check, without the URL's password.
import { describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { postgresStore } from './store.js'
import { available, usePostgres } from './testing/postgres.js'

/**
 * A port nothing can listen on (binding port 0 asks for any free port), so a connection to it is
 * refused; a port a server got and closed again could be taken by another process meanwhile.
 */
const REFUSED_PORT = 0

async function failure(url: string): Promise<BosunError> {
  const store = postgresStore({ url, statementTimeoutMs: 10_000 })
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
})
