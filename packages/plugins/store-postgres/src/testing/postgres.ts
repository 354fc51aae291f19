import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { LOG_FORMAT_VERSION } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'
import { postgresAvailable, startPostgres, type PostgresServer } from '@bosun/testkit'

/** True when this test file's PostgreSQL tests run (see `postgresAvailable`: throws on CI without one). */
export const available = postgresAvailable()

/**
 * Starts a PostgreSQL for this test file (BOSUN_PG_URL, or a throwaway cluster) before its tests
 * and stops it after them. Each `schema()` is a new, empty schema name for one store's tables;
 * `sql()` runs a statement outside any store (to inspect or damage what a store wrote).
 */
export function usePostgres() {
  let server: PostgresServer | undefined
  let admin: pg.Pool | undefined
  const schemas: string[] = []
  beforeAll(async () => {
    if (!available) return
    server = await startPostgres()
    admin = new pg.Pool({ connectionString: server.url, max: 3 })
    admin.on('error', () => {})
  }, 180_000)
  afterAll(async () => {
    if (admin !== undefined && server?.kind === 'url') for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {})
    await admin?.end()
    await server?.stop()
  }, 120_000)
  return {
    url: () => server!.url,
    schema: () => {
      const name = `t_${randomBytes(6).toString('hex')}`
      schemas.push(name)
      return name
    },
    sql: async <Row extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<Row[]> => (await admin!.query<Row>(text, values)).rows,
  }
}

export const header = (id: string, extra: Partial<SessionHeader> = {}): SessionHeader => ({ id, version: LOG_FORMAT_VERSION, createdAt: 1_700_000_000_000, ...extra })

export const event = (seq: number, data: Record<string, unknown> = { n: seq }): SessionEvent =>
  Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: 'test/value', data: Object.freeze(data) }) as SessionEvent

/** Polls `check` until it returns true (a busy machine needs no fixed sleep), failing after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
