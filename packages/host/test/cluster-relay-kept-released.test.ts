// The owner ran a relayed request and its save of the answer failed, so it keeps the answer for the
// next round under its lease (a6951d8). When the session's lease is released before that round (an
// idle retire), the kept answer goes with it: whoever opens the session next — this host too — runs
// the request, as the docs say of a lost lease, and nothing stays kept for a session no longer
// open. Real PostgreSQL, one host (so that the next open is its own), limits.idleMs 50, and no
// watcher poll within the test (a wake-up is a mailbox post's NOTIFY).
import { describe, expect, it } from 'vitest'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { available, createSession, onRelayed, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

const cancel = { method: 'POST', path: '/v1/sessions/s/cancel', body: {} }

describe.skipIf(!available)('host cluster on PostgreSQL — an answer kept after a failed save, and the lease released', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('is dropped with the lease: the next open runs the request', { timeout: 60_000 }, async () => {
    const [a] = cluster.hosts(1, { host: { limits: { keepAliveMs: 200, idleMs: 50 }, cluster: { relayWaitMs: 0, pollIntervalMs: 600_000 } } })
    const onA = await serve(a!)
    await createSession(onA, 's')
    await (a!.host.cluster!.watcher as unknown as Watcher).whenListening()
    // Saves of answers fail, as when the database connection drops under them, until the cancel
    // runs a second time: a kept answer tried again (by a round of the open it ran under, or —
    // the fault — after the lease was released) fails too, and the entry stays pending.
    let failing = true
    let runs = 0
    onRelayed(a!, async (request) => {
      if (new URL(request.url).pathname.endsWith('/cancel') && ++runs === 2) failing = false
      return undefined
    })
    const mailbox = a!.store.mailbox
    const complete = mailbox.complete.bind(mailbox)
    let failed!: () => void
    const saveFailed = new Promise<void>((resolve) => (failed = resolve))
    mailbox.complete = async (session, messageId, outcome, position) => {
      if (failing) {
        failed()
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' })
      }
      return complete(session, messageId, outcome, position)
    }

    await mailbox.post('s', { messageId: '_request:cancel', kind: 'request', body: cancel })
    await saveFailed
    expect(runs).toBe(1)
    // Idle, the session is retired and its lease released. Waited for by the shared waitFor (a
    // read every 10 ms): a read after each setImmediate kept a core and the pool busy, and under load
    // made an idle retire under a round of the mail likelier (cluster-mail-idle-retire.test).
    await waitFor(async () => {
      const holder = await a!.store.leaseHolder('s')
      return holder === undefined || holder.expiresInMs <= 0
    }, 30_000, "session s's lease to be released by its idle retire")
    // New mail wakes the host: it opens the session again and carries out both entries, the
    // cancel run afresh (with the kept answer saved instead, no save would succeed: a time-out).
    await mailbox.post('s', { messageId: '_request:wake', kind: 'request', body: { method: 'POST', path: '/v1/sessions/s/wake', body: {} } })
    for (const id of ['_request:cancel', '_request:wake']) {
      await waitFor(async () => (await mailbox.get('s', id))?.doneAt != null, 30_000, `${id} to be answered after the wake-up`)
    }
    expect(runs).toBe(2)
    expect(((await mailbox.get('s', '_request:cancel'))?.outcome as { status: number }).status).toBe(200)
  })
})
