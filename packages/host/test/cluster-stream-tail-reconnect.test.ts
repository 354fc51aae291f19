// A host that does not own the session streams it from the store (cluster/remote-stream.ts): an
// EventSource reconnecting to `?from=tail` there resumes after its Last-Event-ID too, as on the
// owner (stream-tail-reconnect.test.ts). Its `?from` is checked as the owner's (stream-query.test.ts):
// the route shares `streamQuery()`, and a cluster route that parsed its own would replay the whole
// log for a typo. Real PostgreSQL.
import { describe, expect, it } from 'vitest'
import { available, useCluster } from './cluster-helpers.js'
import { json, req, SseReader, waitFor } from './helpers.js'

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

  it.each(['head', 'Tail', 'end'])('?from=%s is 400 invalid-request at ?from, as on the owner', { timeout: 60_000 }, async (from) => {
    const [a, b] = cluster.hosts(2)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(a!.host, 'POST', '/v1/sessions/s/messages?wait=durable', { content: 'hi', clientMessageId: 'm', delivery: 'inject' })).status).toBe(202)
    const answer = await req(b!.host, 'GET', `/v1/sessions/s/stream?from=${from}`)
    expect(answer.status).toBe(400)
    const { error } = await json(answer)
    expect(error).toMatchObject({ code: 'invalid-request', details: { path: '?from' } })
    expect(error.message).toBe(`"from" may only be "tail" (live events only; leave it out to replay from seq 0, or give ?after=<seq>), got ${JSON.stringify(from)}.`)
    // Answered by the cluster route: B did not open the session A holds.
    expect(await b!.host.sessions.peek('s')).toBeUndefined()
  })
})
