import { describe, expect, it } from 'vitest'
import { json, req, SseReader, stepGate, waitFor } from './helpers.js'
import { available, turnsEnded, useCluster } from './cluster-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — live status of sessions other hosts run', () => {
  const cluster = useCluster()

  it('host B lists a session host A runs as running, and its host stream says when it starts and ends', async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    await req(a!.host, 'POST', '/v1/sessions', { id: 'busy' })
    await req(a!.host, 'POST', '/v1/sessions', { id: 'quiet' })
    const feed = new SseReader(await req(b!.host, 'GET', '/v1/stream'))
    await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)

    await req(a!.host, 'POST', '/v1/sessions/busy/messages', { clientMessageId: 'm-1', content: 'held' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the turn to be held on A')
    const statusOn = async (host: typeof b) => Object.fromEntries((await json<{ sessions: { id: string; status: string; loaded: boolean }[] }>(req(host!.host, 'GET', '/v1/sessions'))).sessions.map((s) => [s.id, `${s.status}${s.loaded ? ' (loaded)' : ''}`]))
    await waitFor(async () => (await statusOn(b)).busy === 'running', 30_000, 'B to list "busy" as running')
    expect(await statusOn(b)).toEqual({ busy: 'running', quiet: 'idle' })
    expect(await statusOn(a)).toMatchObject({ busy: 'running (loaded)' })
    // B did not take the session to learn it: A still owns it.
    expect(await b!.store.leaseHolder('busy')).toMatchObject({ owner: 'host-a' })
    expect(await b!.host.sessions.peek('busy')).toBeUndefined()

    const statusFrames = (frames: { event: string; data?: { id: string; status: string } }[]) => frames.filter((f) => f.event === 'session.status' && f.data?.id === 'busy').map((f) => f.data!.status)
    await feed.until((frames) => statusFrames(frames).includes('running'), 30_000)
    gate.open()
    await waitFor(async () => turnsEnded((await b!.store.read('busy'))!.events) === 1, 30_000, 'the turn to end on A')
    await feed.until((frames) => statusFrames(frames).at(-1) === 'idle', 30_000)
    expect(statusFrames(feed.frames)).toEqual(['running', 'idle'])
    expect(await statusOn(b)).toEqual({ busy: 'idle', quiet: 'idle' })
    await feed.cancel()
  })

  it('a status change whose NOTIFY was lost is caught up by the poll', async () => {
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    await req(a!.host, 'POST', '/v1/sessions', { id: 'lost' })
    const feed = new SseReader(await req(b!.host, 'GET', '/v1/stream'))
    await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    const frameOf = (status: string) => (frames: { event: string; data?: { id: string; status: string } }[]) => frames.some((f) => f.event === 'session.status' && f.data?.id === 'lost' && f.data.status === status)
    // The row changes as a commit changes it, and no NOTIFY is sent: as if it was lost on the way.
    await cluster.sql(`UPDATE "${hosts.schema}".sessions SET status = 'running' WHERE id = 'lost'`)
    await feed.until(frameOf('running'), 30_000)
    await cluster.sql(`UPDATE "${hosts.schema}".sessions SET status = 'idle' WHERE id = 'lost'`)
    await feed.until(frameOf('idle'), 30_000)
    await feed.cancel()
  })
})
