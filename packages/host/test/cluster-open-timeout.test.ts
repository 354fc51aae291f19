// limits.openTimeoutMs on a cluster: a host whose open of a session stalls in a plugin setup
// answers 503 instead of holding the request, and once the setup settles it closes the agent it
// made late — releasing the session's lease, so another host opens the session itself rather than
// relaying to a host that no longer runs it. Real PostgreSQL, hosts served on 127.0.0.1.
import { definePlugin } from '@bosun/core'
import { describe, expect, it, vi } from 'vitest'
import { available, post, useCluster, useServers } from './cluster-helpers.js'

/** A plugin whose setups wait, while `holding`, until `open()`. */
function setupGate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  const state = { holding: false, setups: 0 }
  const plugin = definePlugin({
    name: 'slow-setup',
    async setup() {
      state.setups++
      if (state.holding) await opened
    },
  })
  return { plugin, state, open }
}

describe.skipIf(!available)('host cluster on PostgreSQL — an open that outlasts openTimeoutMs', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('answers 503, and the late open releases the lease for another host', { timeout: 90_000 }, async () => {
    const gate = setupGate()
    // A creates the session under the default bound (1 s could pass before a busy machine opens
    // it: a 503 there would test nothing); B and C open it under 1 s.
    const hosts = cluster.hosts(3, { plugins: () => [gate.plugin], host: (index) => ({ limits: { keepAliveMs: 200, ...(index === 0 ? {} : { openTimeoutMs: 1000 }) } }) })
    const [a, b, c] = hosts
    expect((await post(await serve(a!), '/v1/sessions', { id: 'slow' })).status).toBe(201)
    // A clean shutdown releases its leases: the session is cold.
    await a!.host.close()

    gate.state.holding = true
    const refused = await post(await serve(b!), '/v1/sessions/slow/messages', { clientMessageId: 'm1', content: 'hi' })
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('session-unavailable')

    // The setup settles: B closes the agent it made late, and releases its lease with it. Waited
    // for in the database before C is asked: a message C got while B still held the lease would be
    // relayed to B, which would open the session again to answer it — and one every 100 ms would
    // keep it busy there for good (B closes a session only after 200 ms idle). That race failed
    // the whole suite once, on a quiet machine.
    gate.state.holding = false
    gate.open()
    const lease = () => cluster.sql(`SELECT owner, expires_at = '-infinity'::timestamptz AS released FROM "${hosts.schema}".session_leases WHERE session_id = 'slow'`)
    await vi.waitFor(async () => expect(await lease()).toEqual([{ owner: 'host-b', released: true }]), { timeout: 60_000, interval: 50 })
    const onC = await serve(c!)
    let n = 2
    // Tried again no sooner than B would let go of a session it had opened to answer a relay.
    await vi.waitFor(async () => {
      expect((await post(onC, '/v1/sessions/slow/messages', { clientMessageId: `m${n++}`, content: 'hi' })).status).toBe(202)
      // Opened on C (not relayed to B): B holds no lease on it.
      expect(c!.host.sessions.liveIds()).toContain('slow')
    }, { timeout: 60_000, interval: 500 })
    expect(b!.host.sessions.liveIds()).not.toContain('slow')
  })
})
