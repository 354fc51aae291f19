import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { createAgent, definePlugin, foldConsumedWork, type Plugin, type SessionEvent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { postgresStore, type PostgresStore, type PostgresStoreOptions } from '@bosun/plugin-store-postgres'
import { postgresAvailable, startPostgres, type PostgresServer } from '@bosun/testkit'
import { createHost, listen, type CreateHostOptions, type Host, type RunningServer } from '../src/index.js'
import { isListen, pgProxy } from './pg-proxy.js'
import { waitFor } from './helpers.js'

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
    /** The database's URL (a throwaway cluster's password: never logged). */
    url: () => server!.url,
    sql: async (text: string, values?: unknown[]) => (await admin!.query(text, values)).rows,
    /** `n` hosts on a new schema; each session's model replays `responses()` and then echoes. */
    hosts(n: number, options: { responses?: () => ScriptedResponse[]; plugins?: () => Plugin[]; leaseTtlMs?: number; host?: Partial<CreateHostOptions> | ((index: number) => Partial<CreateHostOptions>); defaultOwners?: boolean; storeUrl?: (url: string, index: number) => string; store?: (index: number) => Partial<PostgresStoreOptions> } = {}): ClusterHost[] & { schema: string } {
      const schema = `c_${randomBytes(6).toString('hex')}`
      schemas.push(schema)
      const made = Array.from({ length: n }, (_, i) => {
        const name = `host-${String.fromCharCode(97 + i)}`
        // defaultOwners: the stores name themselves (`<hostname>:<pid>:<random>`), as a deployment that sets no owner.
        // Leases of 10 minutes by default: only a test that expires one (as a dead host leaves it)
        // moves a session. With the product's 30 s, a worker or database paused 20 s on a loaded
        // machine would miss a renewal and the other host would take its sessions over.
        const store = postgresStore({ url: options.storeUrl?.(server!.url, i) ?? server!.url, schema, ...(options.defaultOwners ? {} : { owner: name }), poolSize: 4, leaseTtlMs: options.leaseTtlMs ?? 600_000, ...options.store?.(i) })
        const host = createHost({
          store,
          agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: options.responses?.() ?? [] }), store, sessionId, plugins: options.plugins?.() ?? [] }),
          limits: { keepAliveMs: 200 },
          cluster: { relayWaitMs: 60_000, pollIntervalMs: 200 },
          ...(typeof options.host === 'function' ? options.host(i) : options.host),
        })
        const h = { host, store, name }
        open.push(h)
        return h
      })
      return Object.assign(made, { schema })
    },
  }
}

/** POSTs `body` as JSON to `url` + `path`. */
export const post = (url: string, path: string, body: unknown): Promise<Response> => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

/**
 * Serves a test's hosts on 127.0.0.1 (no token); each server is closed after the test, before its
 * hosts are (call it after {@link useCluster}: later afterEach hooks run first). Returns the URL.
 */
export function useServers(): (h: ClusterHost) => Promise<string> {
  const servers: RunningServer[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
  })
  return async (h) => {
    const server = await listen(h.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    servers.push(server)
    return server.url
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

/**
 * A TCP proxy to PostgreSQL at `url` that holds every LISTEN connection (its startup packet names
 * the watcher's application_name) until `release()`; the pool's connections pass at once. A host
 * on `url` (the proxy's) has its queries answered while its LISTEN connection is not up yet, for
 * as long as a test needs. `close()` takes no new connection; those open end with their hosts' stores.
 */
export async function listenGate(url: string): Promise<{ url: string; held: () => number; release: () => void; close: () => void }> {
  const proxy = await pgProxy(url)
  proxy.hold(isListen)
  return { url: proxy.url, held: proxy.held, release: proxy.release, close: proxy.close }
}

/**
 * Runs `before` on each request another host relayed to `h` (through its own app, as the owner
 * runs its mailbox): a Response it returns is the owner's answer, a throw the run's failure,
 * undefined lets the route answer.
 */
export function onRelayed(h: ClusterHost, before: (request: Request) => Promise<Response | undefined>): void {
  const app = h.host.app
  const real = app.fetch
  app.fetch = (async (request: Request, ...rest: unknown[]) => {
    if (request.headers.get('x-bosun-relayed') !== null) {
      const answered = await before(request)
      if (answered !== undefined) return answered
    }
    return (real as (...args: unknown[]) => Promise<Response>)(request, ...rest)
  }) as typeof app.fetch
}

/** A plugin whose setup refuses the config while `state.refusing` is set, counting every setup. */
export function refusingPlugin(refusing = true) {
  const state = { refusing, setups: 0 }
  const plugin = definePlugin({
    name: 'refuses-config',
    setup() {
      state.setups++
      if (state.refusing) throw new Error('refuses-config: this configuration is refused; fix the plugin options.')
    },
  })
  return { plugin, state }
}

/** Creates session `id` through the host at `url` (`POST /v1/sessions`), expecting 201. */
export async function createSession(url: string, id: string): Promise<void> {
  const response = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) })
  expect(response.status, `POST /v1/sessions ${id}`).toBe(201)
}

/**
 * Two hosts on a new schema, served, with session `s` made on host A and its first turn (message
 * `c-1`) held at its step by `gate`: what is sent next stays queued. Mail is relayed with a 30 s
 * wait and polled every 200 ms.
 */
export async function heldSession(cluster: ReturnType<typeof useCluster>, serve: (h: ClusterHost) => Promise<string>, gate: { plugin: Plugin; readonly waiting: number }) {
  const hosts = cluster.hosts(2, { plugins: () => [gate.plugin], host: { cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 } } })
  const [a, b] = [hosts[0]!, hosts[1]!]
  const [onA, onB] = [await serve(a), await serve(b)]
  expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
  expect((await post(onA, '/v1/sessions/s/messages', { clientMessageId: 'c-1', content: 'first' })).status).toBe(202)
  await waitFor(() => gate.waiting === 1, 30_000, 'the first turn held at its step')
  return { a, b, onA, onB, schema: hosts.schema }
}

/** Host `h` reads no mail until the returned function is called: what is posted meanwhile waits for its commits. */
export function holdMail(h: ClusterHost): () => void {
  const pending = h.store.mailbox.pending.bind(h.store.mailbox)
  let hold = true
  h.store.mailbox.pending = (async (...args: Parameters<typeof pending>) => (hold ? [] : pending(...args))) as typeof pending
  return () => { hold = false }
}
