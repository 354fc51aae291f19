import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { prefixStats, SLICE_EVENTS } from '../src/log-prefix.js'
import { foldStats } from '../src/stream.js'
import { type Frame, req, SseReader, waitFor } from './helpers.js'
import { available, turnsEnded, useCluster } from './cluster-helpers.js'

// A session's stream on a host that does not own it (cluster/remote-stream.ts) reads the whole
// log from the store and makes its hello from it: the fingerprint up to the cursor, the queues
// and the status at the end. That pass must give the event loop back a slice at a time — one
// request must not hold the host for the length of a long log — and give the same hello.

describe.skipIf(!available)('host cluster: a remote stream\'s hello over a long log', () => {
  const cluster = useCluster()

  it('is made a slice per macrotask, and equals the owner\'s', async () => {
    // One long answer in one-character chunks: a log of a few slices.
    const [a, b] = cluster.hosts(2, { responses: () => [{ text: 'x'.repeat(3 * SLICE_EVENTS), chunkSize: 1 }] })
    await req(a!.host, 'POST', '/v1/sessions', { id: 's' })
    await req(a!.host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await waitFor(async () => turnsEnded((await a!.store.read('s'))!.events) === 1, 30_000, 'the owner to answer m1')
    // An inject waits in next-step without waking the agent: the hello's queues are not empty.
    await req(a!.host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'i1', content: 'context', delivery: 'inject' })
    const last = (await a!.store.read('s'))!.events.length - 1
    expect(last).toBeGreaterThan(3 * SLICE_EVENTS)
    const server = await listen(b!.host, { hostname: '127.0.0.1', port: 0, hasToken: false })

    const hello = async (url: string, cursor: number): Promise<Frame> => {
      const stream = new SseReader(await fetch(`${url}/v1/sessions/s/stream`, { headers: { 'last-event-id': String(cursor) } }))
      const [first] = await stream.until((f) => f.length >= 1, 30_000)
      await stream.cancel()
      expect(first!.event).toBe('hello')
      return first!
    }

    for (const cursor of [last, 2 * SLICE_EVENTS + 500]) {
      const before = { prefix: prefixStats.yields, fold: foldStats.yields }
      const remote = await hello(server.url, cursor)
      // The whole log is hashed up to the cursor and folded to its end: a yield every SLICE_EVENTS events.
      expect(prefixStats.yields - before.prefix).toBe(Math.ceil((cursor + 1) / SLICE_EVENTS) - 1)
      expect(foldStats.yields - before.fold).toBe(Math.ceil((last + 1) / SLICE_EVENTS) - 1)
      const ownerHello = await ownerHelloOf(a!.host, cursor)
      expect(remote.data).toEqual(ownerHello.data)
      expect(remote.data).toMatchObject({ lastSeq: last, status: 'idle', inbox: { 'next-step': [{ id: 'i1' }] }, prefix: { seq: cursor } })
    }
    await server.close()
  })
})

/** The owner's hello for the same cursor, from its live log. */
async function ownerHelloOf(host: Parameters<typeof req>[0], cursor: number): Promise<Frame> {
  const stream = new SseReader(await req(host, 'GET', '/v1/sessions/s/stream', undefined, { 'last-event-id': String(cursor) }))
  const [first] = await stream.until((f) => f.length >= 1, 30_000)
  await stream.cancel()
  return first!
}
