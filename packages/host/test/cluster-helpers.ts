import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { createAgent, foldConsumedWork, type Plugin, type SessionEvent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { postgresStore, type PostgresStore } from '@bosun/plugin-store-postgres'
import { postgresAvailable, startPostgres, type PostgresServer } from '@bosun/testkit'
import { createHost, type CreateHostOptions, type Host } from '../src/index.js'

/** True when this machine can run the cluster tests (a PostgreSQL is found; on CI a missing one fails). */
export const available = postgresAvailable()

export interface ClusterHost { host: Host; store: PostgresStore; name: string }

/**
 * A PostgreSQL for the file (BOSUN_PG_URL, or a throwaway cluster) and, per test, hosts on one
 * fresh schema: `hosts(n)` starts `n` hosts, each with its own store (its own lease owner), all
 * closed after the test.
 */
export function useCluster() {
  let server: PostgresServer | undefined
  let admin: pg.Pool | undefined
  const open: ClusterHost[] = []
  const schemas: string[] = []
  beforeAll(async () => {
    if (!available) return
    server = await startPostgres()
    admin = new pg.Pool({ connectionString: server.url, max: 2 })
    admin.on('error', () => {})
  }, 180_000)
  afterEach(async () => {
    for (const h of open.splice(0).reverse()) {
      await h.host.close()
      await h.store.close().catch(() => {})
    }
  })
  afterAll(async () => {
    if (server?.kind === 'url') for (const s of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => {})
    await admin?.end()
    await server?.stop()
  }, 120_000)
  return {
    sql: async (text: string, values?: unknown[]) => (await admin!.query(text, values)).rows,
    /** `n` hosts on a new schema; each session's model replays `responses()` and then echoes. */
    hosts(n: number, options: { responses?: () => ScriptedResponse[]; plugins?: () => Plugin[]; leaseTtlMs?: number; host?: Partial<CreateHostOptions>; defaultOwners?: boolean } = {}): ClusterHost[] & { schema: string } {
      const schema = `c_${randomBytes(6).toString('hex')}`
      schemas.push(schema)
      const made = Array.from({ length: n }, (_, i) => {
        const name = `host-${String.fromCharCode(97 + i)}`
        // defaultOwners: the stores name themselves (`<hostname>:<pid>:<random>`), as a deployment that sets no owner.
        // Leases of 10 minutes by default: only a test that expires one (as a dead host leaves it)
        // moves a session. With the product's 30 s, a worker or database paused 20 s on a loaded
        // machine would miss a renewal and the other host would take its sessions over.
        const store = postgresStore({ url: server!.url, schema, ...(options.defaultOwners ? {} : { owner: name }), poolSize: 4, leaseTtlMs: options.leaseTtlMs ?? 600_000 })
        const host = createHost({
          store,
          agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: options.responses?.() ?? [] }), store, sessionId, plugins: options.plugins?.() ?? [] }),
          limits: { keepAliveMs: 200 },
          cluster: { relayWaitMs: 60_000, pollIntervalMs: 200 },
          ...options.host,
        })
        const h = { host, store, name }
        open.push(h)
        return h
      })
      return Object.assign(made, { schema })
    },
  }
}

/** Messages of a log's splices with `id`, and the turns that ended: what "answered exactly once" is checked on. */
export function admissionsOf(events: readonly SessionEvent[], id: string): number {
  return events.filter((e) => e.type === 'agent/inbox/spliced' && (e.data as { inserted: { id: string }[] }).inserted.some((m) => m.id === id)).length
}

export function turnsEnded(events: readonly SessionEvent[]): number {
  return events.filter((e) => e.type === 'turn/end').length
}

/** Turns that delivered message `id` to the model and ended other than `interrupted`: 1 when it was answered exactly once. */
export function answeredTurns(events: readonly SessionEvent[], id: string): number {
  return foldConsumedWork(events, 0).turns.filter((t) => t.stepped.includes(id) && t.end !== undefined && t.end !== 'interrupted').length
}
