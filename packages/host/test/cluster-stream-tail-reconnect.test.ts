// A host that does not own the session streams it from the store (cluster/remote-stream.ts): an
// EventSource reconnecting to `?from=tail` there resumes after its Last-Event-ID too, as on the
// owner (stream-tail-reconnect.test.ts). Real PostgreSQL.
import { describe, expect, it } from 'vitest'
import { available, useCluster } from './cluster-helpers.js'
import { req, SseReader, waitFor } from './helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — ?from=tail with Last-Event-ID on a host that does not own the session', () => {
  const cluster = useCluster()

  it('resumes after Last-Event-ID', { timeout: 60_000 }, async () => {
    const [a, b] = cluster.hosts(2)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(a!.host, 'POST', '/v1/sessions/s/messages?wait=durable', { content: 'hi', clientMessageId: 'm' })).status).toBe(202)
    await waitFor(async () => (await a!.host.sessions.peek('s'))?.agent.status === 'idle', 30_000, 'the turn over on A')
    await (await a!.host.sessions.peek('s'))!.agent.session.flush()
    const lastSeq = (await a!.store.read('s'))!.events.length - 1
    expect(lastSeq).toBeGreaterThan(3)

    const stream = new SseReader(await req(b!.host, 'GET', '/v1/sessions/s/stream?from=tail', undefined, { 'last-event-id': '2' }))
    const frames = await stream.until((f) => f.some((x) => x.comment === 'keep-alive') || f.filter((x) => x.event === 'session.event').length >= lastSeq - 2)
    await stream.cancel()
    expect(frames.filter((f) => f.event === 'session.event').map((f) => Number(f.id))).toEqual(Array.from({ length: lastSeq - 2 }, (_, i) => i + 3))
    expect(await b!.host.sessions.peek('s')).toBeUndefined()
  })
})
