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
    const [a, b, c] = cluster.hosts(3, { plugins: () => [gate.plugin], host: (index) => ({ limits: { keepAliveMs: 200, ...(index === 0 ? {} : { openTimeoutMs: 1000 }) } }) })
    expect((await post(await serve(a!), '/v1/sessions', { id: 'slow' })).status).toBe(201)
    // A clean shutdown releases its leases: the session is cold.
    await a!.host.close()

    gate.state.holding = true
    const refused = await post(await serve(b!), '/v1/sessions/slow/messages', { clientMessageId: 'm1', content: 'hi' })
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('session-unavailable')

    // The setup settles: B closes the agent it made late, and its lease with it.
    gate.state.holding = false
    gate.open()
    const onC = await serve(c!)
    let n = 2
    await vi.waitFor(async () => {
      expect((await post(onC, '/v1/sessions/slow/messages', { clientMessageId: `m${n++}`, content: 'hi' })).status).toBe(202)
      // Opened on C (not relayed to B): B holds no lease on it.
      expect(c!.host.sessions.liveIds()).toContain('slow')
    }, { timeout: 60_000, interval: 100 })
    expect(b!.host.sessions.liveIds()).not.toContain('slow')
  })
})
