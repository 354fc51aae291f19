// A cluster host polls the store for expired leases and running sessions (`pollIntervalMs`).
// During a PostgreSQL outage every poll logged two full stack traces — five polls a second in
// this test, ten lines a second at the default — and nothing said when it ended. It now logs one
// line when the polls start failing (what failed, what to check, that it keeps polling) and one
// when a poll works again. A real PostgreSQL cluster of this file's own, stopped and started
// again (pg_ctl, as the user the testkit runs it as: PostgreSQL refuses root).
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { postgresStore, type PostgresStore } from '@bosun/plugin-store-postgres'
import { findPostgres, startPostgres, type PostgresServer } from '@bosun/testkit'
import { createHost, type Host } from '../src/index.js'
import { PollOutage } from '../src/cluster/poll-outage.js'
import { available } from './cluster-helpers.js'
import { req, waitFor } from './helpers.js'

const run = promisify(execFile)

/** What the testkit's throwaway cluster keeps of itself (startCluster's `state`): where it lives, as whom it runs. */
interface ClusterState { bin: string; dir: string; data: string; uid?: number; gid?: number }

/** Stops and starts the cluster `server` at its port, as its own user; undefined for a server given by BOSUN_PG_URL. */
function pgCtl(server: PostgresServer): { stop(): Promise<void>; start(): Promise<void> } | undefined {
  const state = (server as PostgresServer & { state?: ClusterState }).state
  if (server.kind !== 'cluster' || state === undefined) return undefined
  const port = new URL(server.url).port
  const ctl = async (args: string[]) => {
    const command = join(state.bin, 'pg_ctl')
    const [file, all] = state.uid === undefined ? [command, args] : ['setpriv', [`--reuid=${state.uid}`, `--regid=${state.gid}`, '--clear-groups', command, ...args]]
    await run(file, all, { cwd: state.dir, timeout: 120_000, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } })
  }
  return {
    stop: () => ctl(['stop', '-D', state.data, '-m', 'fast', '-w', '-t', '60']),
    start: () => ctl(['start', '-D', state.data, '-l', join(state.dir, 'server.log'), '-w', '-t', '100', '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${state.dir} -c max_connections=300`]),
  }
}

// Its own cluster (not the run's shared one, which other files use): only with PostgreSQL's binaries.
const ownCluster = available && findPostgres().kind !== 'url'

describe.skipIf(!ownCluster)('host cluster on PostgreSQL — the poll during an outage', () => {
  let server: PostgresServer
  const open: Array<{ host: Host; store: PostgresStore }> = []
  beforeAll(async () => {
    server = await startPostgres({ shared: false })
  }, 180_000)
  afterEach(async () => {
    vi.restoreAllMocks()
    for (const { host, store } of open.splice(0)) {
      await host.close().catch(() => {})
      await store.close().catch(() => {})
    }
  })
  afterAll(() => server?.stop(), 120_000)

  it('logs one line when the polls start failing and one when they work again, no stack traces', { timeout: 300_000 }, async () => {
    const ctl = pgCtl(server)!
    expect(ctl, 'a cluster the test can stop').toBeDefined()
    // A statement timeout well above a loaded machine's slowest poll: one timing out before the stop
    // would log a failure and a recovery of its own, and the one-line checks below count lines.
    const store = postgresStore({ url: server.url, schema: 'outage', owner: 'host-a', poolSize: 4, leaseTtlMs: 600_000, statementTimeoutMs: 15_000 })
    const host = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }),
      cluster: { pollIntervalMs: 200 },
    })
    open.push({ host, store })
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    // The polls that ran: counted where the poll asks the store for expired leases.
    let polls = 0
    const expired = store.expiredLeases.bind(store)
    store.expiredLeases = (limit) => {
      polls++
      return expired(limit)
    }
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '))
    })
    const password = new URL(server.url).password

    await ctl.stop()
    await waitFor(() => lines.some((l) => l.includes("cluster's poll cannot reach the store")), 60_000, 'the outage to be logged')
    const from = polls
    await waitFor(() => polls >= from + 5, 60_000, 'five more polls during the outage')
    const outage = lines.filter((l) => l.includes("cluster's poll"))
    expect(outage).toHaveLength(1)
    expect(outage[0]).toMatch(/^\[bosun host\] the cluster's poll cannot reach the store: PostgreSQL store postgres:\/\/127\.0\.0\.1:\d+\/postgres: could not [^\n]+\. Check that the database is up and reachable from this host\. .*it keeps polling every 200 ms/)
    // No stack trace, no other poll line, no credential.
    expect(lines.filter((l) => /\n\s+at /.test(l) || l.includes('looking for sessions to take over failed') || l.includes('reading which sessions run failed'))).toEqual([])
    if (password !== '') expect(lines.join('\n')).not.toContain(password)

    await ctl.start()
    await waitFor(() => lines.some((l) => l.includes("cluster's poll reaches the store again")), 60_000, 'the recovery to be logged')
    const recovered = lines.filter((l) => l.includes("cluster's poll reaches the store again"))
    expect(recovered).toHaveLength(1)
    expect(recovered[0]).toMatch(/^\[bosun host\] the cluster's poll reaches the store again, after \d+ s and \d+ failed polls?\.$/)
    // The host serves from the database again.
    await waitFor(async () => (await req(host, 'GET', '/v1/sessions/s')).status === 200, 60_000, 'the session read again')
  })

  // A wrong password is no outage: the line said "check that the database is up and reachable", sending
  // the operator to a database that was up all along.
  it('a host whose settings the database refuses (a wrong password) says so, not "check that the database is up"', { timeout: 120_000 }, async () => {
    const url = new URL(server.url)
    url.password = 'not-the-password-xyz'
    const store = postgresStore({ url: url.href, schema: 'refused', owner: 'host-r', poolSize: 2, statementTimeoutMs: 15_000 })
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '))
    })
    const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }), cluster: { pollIntervalMs: 200 } })
    open.push({ host, store })
    await waitFor(() => lines.some((l) => l.includes("cluster's poll")), 60_000, 'the poll\'s failure to be logged')
    const said = lines.filter((l) => l.includes("cluster's poll"))
    expect(said[0]).toMatch(/^\[bosun host\] the cluster's poll is refused by the store: PostgreSQL store postgres:\/\/127\.0\.0\.1:\d+\/postgres: could not [^\n]+password authentication failed[^\n]+\(check the user and password in the URL\)\. The database answered: this is this host's settings or the database's, not an outage/)
    expect(said[0]).toContain('Fix what it says: a setting of this host (the URL\'s user, password or database, the schema) needs a restart of this host; a grant or a database made on the server is picked up by the next poll.')
    expect(said[0]).not.toContain('Check that the database is up')
    expect(lines.join('\n')).not.toContain('not-the-password-xyz')
  })
})

describe('PollOutage', () => {
  it('says the start of a failing streak, then only every logEveryMs, then its end once', () => {
    let now = 1_000
    const outage = new PollOutage(200, () => now, 60_000)
    expect(outage.succeeded()).toBeUndefined()
    const store = (message: string) => Object.assign(new Error(message), { code: 'STORE' })
    const first = outage.failed(store('could not list the expired leases: connect ECONNREFUSED.'))
    // A store's failure by its message alone: no stack.
    expect(first).toHaveLength(1)
    expect(first![0]).toMatch(/^\[bosun host\] the cluster's poll cannot reach the store: could not list the expired leases: connect ECONNREFUSED\. Check/)
    now += 59_999
    expect(outage.failed(store('x'))).toBeUndefined()
    now += 1
    expect(outage.failed(store('still refused'))).toEqual(["[bosun host] the cluster's poll still cannot reach the store, for 60 s (3 failed polls): still refused."])
    now += 1_000
    expect(outage.failed(store('x'))).toBeUndefined()
    expect(outage.succeeded()).toBe("[bosun host] the cluster's poll reaches the store again, after 61 s and 4 failed polls.")
    expect(outage.succeeded()).toBeUndefined()
    // A new streak is said again from its start; an error that is no store's (a bug) is printed whole.
    const bug = new TypeError('again')
    const again = outage.failed(bug)
    expect(again![0]).toContain('cannot reach the store: again.')
    expect(again![1]).toBe(bug)
  })

  it('a store that refuses this host\'s settings is said to be no outage, at the start and while it lasts', () => {
    let now = 1_000
    const outage = new PollOutage(200, () => now, 60_000)
    const refused = (details: Record<string, unknown>, code = 'STORE') => Object.assign(new Error('refused.'), { code, details })
    for (const error of [refused({ sqlState: '28P01' }), refused({ sqlState: '3D000' }), refused({ sqlState: '42501' }), refused({ tables: ['sessions'] }), refused({}, 'UNSUPPORTED_LOG_VERSION')]) {
      const first = outage.failed(error)
      expect(first).toHaveLength(1)
      expect(first![0]).toMatch(/^\[bosun host\] the cluster's poll is refused by the store: refused\. The database answered: this is this host's settings or the database's, not an outage/)
      now += 60_000
      expect(outage.failed(error)).toEqual([`[bosun host] the cluster's poll is still refused by the store, for 60 s (2 failed polls): refused.`])
      outage.succeeded()
    }
    // A connection refused or a timeout is an outage, as before.
    expect(outage.failed(refused({ sqlState: '57014' }))![0]).toContain('cannot reach the store: refused. Check that the database is up')
  })
})
