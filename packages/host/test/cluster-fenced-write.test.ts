// A host whose lease was taken over learns it from the first write the database refuses (a
// fenced batch), not only from its next renewal (a third of the lease's TTL later): until then it
// kept the session open, answered `?wait=durable` sends 500 internal-error and took plain sends
// into an agent that can never write them (202, then lost), every retry included. Real
// PostgreSQL, hosts served on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, useCluster, useServers } from './cluster-helpers.js'
import { waitFor } from './helpers.js'

const send = async (url: string, path: string, body: unknown): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: await response.json() }
}

describe.skipIf(!available)('host cluster on PostgreSQL — a write refused because the lease was taken over', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('drops the session at once: the answer says session-locked, and the retry is relayed to the new owner and admitted once', { timeout: 90_000 }, async () => {
    // Leases of 10 minutes: host A's renewal (every ~200 s) cannot be what tells it.
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    const [onA] = [await serve(a!), await serve(b!)]
    expect((await send(onA, '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'first', content: 'hi' })).status).toBe(202)
    await waitFor(async () => (await a!.host.sessions.peek('s'))?.agent.status === 'idle', 30_000, 'the first turn over on A')

    // A stalls past its lease (as a paused process does): B's poll takes the session over.
    await cluster.sql(`UPDATE "${hosts.schema}".session_leases SET expires_at = clock_timestamp() - interval '1 millisecond' WHERE session_id = 's'`)
    await waitFor(async () => (await b!.store.leaseHolder('s'))?.owner === 'host-b', 30_000, 'host B to take the session over')
    expect(await a!.host.sessions.peek('s')).toBeDefined()

    // A send to A, which still has the session open: its batch is refused by the database.
    const refused = await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 409, code: 'session-locked' })
    await waitFor(async () => (await a!.host.sessions.peek('s')) === undefined, 30_000, 'host A to drop the session it can no longer write')

    // The client's retry (same id) on A is relayed to B and admitted there, once.
    const retried = await send(onA, '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'second', content: 'sent to the old owner' })
    expect(retried.status, JSON.stringify(retried.body)).toBe(202)
    expect(admissionsOf((await b!.store.read('s'))!.events, 'second')).toBe(1)
  })
})
