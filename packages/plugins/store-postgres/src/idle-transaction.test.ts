// A store that goes silent in the middle of a transaction (its process paused, its network cut)
// kept the transaction's locks — a lease row, the schema's advisory lock — for as long as its
// connection lived, and every other host's statements needing them waited out statementTimeoutMs,
// again and again. The server ends such a session after statementTimeoutMs and 1 s more
// (idle_in_transaction_session_timeout): the lock is free again. Real PostgreSQL; waits on the lock.
import { describe, expect, it } from 'vitest'
import { openDatabase } from './database.js'
import { resolveOptions } from './options.js'
import { available, until, usePostgres } from './testing/postgres.js'

describe.skipIf(!available)('postgres store — a client silent inside a transaction', () => {
  const pg = usePostgres()

  it("has its session ended by the server, which frees the transaction's locks", { timeout: 120_000 }, async () => {
    const db = openDatabase(resolveOptions({ url: pg.url(), schema: pg.schema(), statementTimeoutMs: 500 }))
    const key = 42_424_242
    let freed = false
    try {
      const failure = await db.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [key])
        // Silent from here on: the next statement comes only once another connection can take the lock.
        await until(async () => (await pg.sql<{ free: boolean }>('SELECT pg_try_advisory_lock($1) AS free', [key]))[0]!.free, 'the lock to be freed', 30_000)
        freed = true
        await pg.sql('SELECT pg_advisory_unlock($1)', [key])
        return client.query('SELECT 1')
      }).then(() => undefined, (error: unknown) => error as Error)
      expect(freed, 'the lock freed while the transaction was silent').toBe(true)
      // The transaction's connection was ended by the server: its next statement fails.
      expect(failure).toBeInstanceOf(Error)
    } finally {
      await db.end()
    }
  })
})
