// The owner's round of carrying out a session's mail threw (here: its read of the pending mail
// failed once, as when the database connection drops) while a wake-up for new mail arrived: that
// wake-up still gets its round. Dropped with the failed round, the mail would wait for the
// watcher's next poll — ten minutes here, longer than the test may take. Real PostgreSQL, two
// hosts: A owns the session, B relays two messages to it.
import { describe, expect, it } from 'vitest'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { admissionsOf, available, post, useCluster, useServers } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a wake-up during a round that throws', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('the new mail is carried out without waiting for the poll', { timeout: 120_000 }, async () => {
    const [a, b] = cluster.hosts(2, { host: { cluster: { relayWaitMs: 600_000, pollIntervalMs: 600_000 } } })
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await post(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    const watcher = a!.host.cluster!.watcher as unknown as Watcher
    await watcher.whenListening()

    // A's next read of the pending mail waits until the test lets it go, then fails once.
    const mailbox = a!.store.mailbox
    const read = mailbox.pending.bind(mailbox)
    let reached!: () => void
    const reading = new Promise<void>((resolve) => (reached = resolve))
    let fail!: () => void
    const failing = new Promise<void>((resolve) => (fail = resolve))
    let armed = true
    mailbox.pending = async (session, limit) => {
      if (armed) {
        armed = false
        reached()
        await failing
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' })
      }
      return read(session, limit)
    }
    // Registered after the cluster's own listener, so it hears a NOTIFY after the cluster has.
    const heard = new Set<string>()
    let woken: (() => void) | undefined
    watcher.onMailbox((_, messageId) => {
      if (messageId !== undefined) heard.add(messageId)
      woken?.()
    })

    const first = post(onB, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'm-1', content: 'one' })
    await reading
    const second = post(onB, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'm-2', content: 'two' })
    // The wake-up for m-2 reached A's cluster while its round is held.
    while (!heard.has('m-2')) await new Promise<void>((resolve) => (woken = resolve))
    fail()

    const answers = await Promise.all([first, second])
    expect(answers.map((r) => r.status)).toEqual([202, 202])
    const events = (await a!.store.read('s'))!.events
    expect([admissionsOf(events, 'm-1'), admissionsOf(events, 'm-2')]).toEqual([1, 1])
  })
})
