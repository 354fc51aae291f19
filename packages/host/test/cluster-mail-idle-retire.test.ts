// Mail that reaches the owner just as the session's idle time runs out: the round that carries it
// out uses the session, so the idle retire does not close it (and release its lease) under the
// round. Closed there, the round's claim of the entry was refused (no lease) and the round ended
// quietly with the mail pending until the watcher's next poll — ten minutes here; the failure
// cluster-relay-kept-released.test hit on a loaded machine. Real PostgreSQL, one host,
// limits.idleMs 50, no watcher poll within the test (a wake-up is a mailbox post's NOTIFY).
import { describe, expect, it } from 'vitest'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { available, createSession, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — mail arriving as the session retires idle', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('is carried out by the round it woke, not left for the poll', { timeout: 60_000 }, async () => {
    const [a] = cluster.hosts(1, { host: { limits: { keepAliveMs: 200, idleMs: 50 }, cluster: { relayWaitMs: 0, pollIntervalMs: 600_000 } } })
    const onA = await serve(a!)
    await createSession(onA, 's')
    await (a!.host.cluster!.watcher as unknown as Watcher).whenListening()
    // Live here and kept in use until the round has begun (so that the round finds it open and
    // does not open it itself); then its idle time starts.
    const live = await a!.host.sessions.use('s')
    const inUse = a!.host.sessions.hold(live)
    // The round's read of the pending mail returns once the idle timer armed then has fired: it
    // retired the session, or found it in use and armed another.
    const mailbox = a!.store.mailbox
    const pending = mailbox.pending.bind(mailbox)
    let reads = 0
    mailbox.pending = async (session, limit) => {
      const read = await pending(session, limit)
      if (read.length > 0 && reads++ === 0) {
        inUse()
        const armed = live.idleTimer
        await waitFor(() => live.closed === true || live.idleTimer !== armed, 30_000, 'the idle timer to fire')
      }
      return read
    }

    await mailbox.post('s', { messageId: '_request:cancel', kind: 'request', body: { method: 'POST', path: '/v1/sessions/s/cancel', body: {} } })
    await waitFor(async () => (await mailbox.get('s', '_request:cancel'))?.doneAt != null, 20_000, 'the cancel to be answered (without the watcher poll)')
    expect(reads).toBeGreaterThan(0)
    expect(((await mailbox.get('s', '_request:cancel'))?.outcome as { status: number }).status).toBe(200)
  })
})
