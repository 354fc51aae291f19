// A PostgreSQL that stops answering (a hung connection: a paused backend, a partition, a failover
// that leaves the old address silent) stalled the store calls a host's cluster makes for ever: the
// poll for dead hosts' sessions, the watcher's poll for mail, the LISTEN connection, the close. The
// store bounds each call by statementTimeoutMs and 1 s more, failing it as STORE; the cluster's loops
// treat that as any failed round and, once the database answers again (on new connections: the cut
// ones stay silent), carry on. Real PostgreSQL behind a proxy that cuts A's connections (A owns the
// session, B relays a message to it); waits on what is logged and stored, not on times.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { available, post, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'
import { pgProxy } from './pg-proxy.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a database that stops answering', () => {
  // Registered first, so run last (after the servers and hosts are closed).
  const proxies: Array<{ destroy: () => void }> = []
  afterEach(() => {
    vi.restoreAllMocks()
    for (const proxy of proxies.splice(0)) proxy.destroy()
  })
  const cluster = useCluster()
  const serve = useServers()

  /** Hosts A (through a stall proxy, statementTimeoutMs 2000: a busy machine's statements stay well within it) and B; A listening, and owning session `s` if `session`. */
  async function setUp(session = true, pollIntervalMs = 200) {
    const proxy = await pgProxy(cluster.url())
    proxies.push(proxy)
    const [a, b] = cluster.hosts(2, {
      storeUrl: (url, i) => (i === 0 ? proxy.url : url),
      store: (i) => (i === 0 ? { statementTimeoutMs: 2000 } : {}),
      host: { cluster: { relayWaitMs: 0, pollIntervalMs } },
    })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    if (session) expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    await waitFor(() => proxy.listens().length >= 1, 60_000, "A's LISTEN connection")
    const lines: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      lines.push(args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' '))
    })
    return { proxy, a: a!, b: b!, onB, lines }
  }

  it("fails A's stalled calls within the bound, and A carries out the mail once the database answers again", { timeout: 180_000 }, async () => {
    const { proxy, b, onB, lines } = await setUp()
    proxy.stall()
    // Admitted by B (its store answers): the mail A's watcher must find, its NOTIFY lost on A's cut LISTEN connection.
    const sent = await post(onB, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hi' })
    expect(((await sent.json()) as { status: string }).status).toBe('pending')
    // A's poll (dead hosts' sessions, running sessions) was a call that never ended: it fails now, saying why (once: cluster-poll-outage.test.ts).
    const stalled = await waitFor(() => lines.find((line) => line.includes("the cluster's poll cannot reach the store") && line.includes('did not answer')), 60_000, 'a stalled call of A to fail')
    expect(stalled).toContain('statementTimeoutMs')

    proxy.release()
    const done = await waitFor(async () => {
      const entry = await b.store.mailbox.get('s', 'm1')
      return entry?.doneAt === null ? undefined : entry
    }, 90_000, 'A to carry out the message')
    expect((done.outcome as { status: number }).status).toBeLessThan(300)
    expect(done.deliveredSeq).not.toBeNull()
    // The cut LISTEN connection is noticed (it answers no ping) and replaced.
    await waitFor(() => proxy.listens().length >= 2, 60_000, 'A to listen again on a new connection')
  })

  it('closes the host while the database does not answer', { timeout: 180_000 }, async () => {
    // Polls (and pings of the LISTEN connection) only at each connection: none under way at the close.
    const { proxy, a } = await setUp(false, 600_000)
    const [port] = proxy.listens()
    await waitFor(async () => {
      const [backend] = await cluster.sql('SELECT state, query FROM pg_stat_activity WHERE client_port = $1', [port])
      return backend?.state === 'idle' && backend.query === 'SELECT 1'
    }, 60_000, "A's LISTEN connection to have answered its first ping")
    proxy.stall()
    // The cluster's watcher ends its LISTEN connection, which the database never closes: the
    // socket is dropped after the bound, and the close ends.
    await a.host.close()
    proxy.release()
  })
})
