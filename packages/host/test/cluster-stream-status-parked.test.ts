// A cluster host that does not own a session streams it with the owner's status frames (remote-stream.ts):
// also the `idle` said again after a splice that queues input nothing will start (status-fold.ts).
import { describe, expect, it } from 'vitest'
import { req, SseReader, type Frame } from './helpers.js'
import { available, useCluster } from './cluster-helpers.js'

const spliceOf = (id: string) => (frame: Frame) => frame.event === 'session.event' && frame.data.type === 'agent/inbox/spliced' && frame.data.data.inserted.some((m: { id: string }) => m.id === id)

describe.skipIf(!available)('host cluster on PostgreSQL — the status after input nothing will start', () => {
  const cluster = useCluster()

  it("host B's stream of a session host A owns says idle after an inject into it, as A's does", async () => {
    const [a, b] = cluster.hosts(2)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const onB = new SseReader(await req(b!.host, 'GET', '/v1/sessions/s/stream'))
    await onB.until((frames) => frames.length >= 1)
    expect((await req(a!.host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'parked', content: 'later', delivery: 'inject' })).status).toBe(202)
    const frames = await onB.until((all) => all.some(spliceOf('parked')) && all.at(-1)!.event === 'session.status', 30_000)
    const splice = frames.find(spliceOf('parked'))!
    expect(frames.slice(frames.indexOf(splice) + 1).map((f) => f.event)).toEqual(['session.inbox', 'session.status'])
    expect(frames.at(-1)!.data).toEqual({ status: 'idle', seq: splice.data.seq })
    await onB.cancel()
    // Nothing ran it: the owner has it queued, idle.
    const snapshot = (await (await req(a!.host, 'GET', '/v1/sessions/s')).json()) as { status: string; inbox: Record<string, unknown[]> }
    expect(snapshot.status).toBe('idle')
    expect(snapshot.inbox['next-step']).toHaveLength(1)
  }, 60_000)
})
