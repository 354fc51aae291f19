// DELETE /v1/sessions/:id on a cluster: a host refuses a session another live host holds (409
// session-locked: removal is not relayed), its owner removes it, and every host's stream says
// `session.removed` once — the other hosts from the store's NOTIFY, the remover from its route
// (its own NOTIFY is not told again) — and a stream another host serves from the store ends with
// it. Real PostgreSQL, two hosts served on 127.0.0.1, the scripted model.
import { describe, expect, it } from 'vitest'
import { SseReader, waitFor, type Frame } from './helpers.js'
import { available, createSession, post, useCluster, useServers } from './cluster-helpers.js'

const removedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.removed').map((f) => f.data.id as string)
const addedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.added').map((f) => f.data.id as string)

describe.skipIf(!available)('host cluster on PostgreSQL — removing a session', () => {
  const cluster = useCluster()
  const serve = useServers()

  const stream = async (url: string, path: string): Promise<SseReader> => {
    const reader = new SseReader(await fetch(`${url}${path}`))
    await reader.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    return reader
  }

  it('B refuses a session A holds; A removes it; both host streams say session.removed once; B\'s stream of it ends', { timeout: 60_000 }, async () => {
    const [a, b] = cluster.hosts(2)
    const [onA, onB] = [await serve(a!), await serve(b!)]
    await createSession(onA, 's')
    expect((await post(onA, '/v1/sessions/s/messages', { clientMessageId: 'm', content: 'hi' })).status).toBe(202)
    await waitFor(async () => (await (await fetch(`${onA}/v1/sessions/s`)).json() as { status: string; lastSeq: number }).lastSeq > 3, 30_000, 'the turn on A')
    const [feedA, feedB] = [await stream(onA, '/v1/stream'), await stream(onB, '/v1/stream')]
    // Served by B from the store (A owns the session).
    const remote = await stream(onB, '/v1/sessions/s/stream')
    expect(await b!.host.sessions.peek('s')).toBeUndefined()

    const refused = await fetch(`${onB}/v1/sessions/s`, { method: 'DELETE' })
    expect(refused.status).toBe(409)
    const body = await refused.json() as { error: { code: string; message: string; details: { id: string; expiresInMs?: number } } }
    expect(body.error.code).toBe('session-locked')
    expect(body.error.message).toContain('another host of the cluster')
    expect(body.error.details.id).toBe('s')
    expect(typeof body.error.details.expiresInMs).toBe('number')
    expect((await a!.store.list()).map((s) => s.id)).toEqual(['s'])

    // A's own NOTIFY of the removal, heard: not told to A's streams a second time.
    let heardOnA = false
    a!.host.cluster!.watcher.onRemoved?.((session) => {
      if (session === 's') heardOnA = true
    })
    const removed = await fetch(`${onA}/v1/sessions/s`, { method: 'DELETE' })
    expect(removed.status).toBe(200)
    expect(await removed.json()).toEqual({ removed: ['s'] })
    expect(await a!.store.list()).toEqual([])

    await feedB.until((frames) => removedIds(frames).includes('s'), 30_000)
    await remote.until((frames) => removedIds(frames).includes('s'), 30_000)
    expect(remote.frames.at(-1)).toEqual({ event: 'session.removed', data: { id: 's' } })
    await waitFor(() => heardOnA, 30_000, "A's NOTIFY of the removal")
    // Something after it on both streams: a duplicate session.removed would come before it.
    await createSession(onA, 'marker')
    await feedA.until((frames) => addedIds(frames).includes('marker'), 30_000)
    await feedB.until((frames) => addedIds(frames).includes('marker'), 30_000)
    expect(removedIds(feedA.frames)).toEqual(['s'])
    expect(removedIds(feedB.frames)).toEqual(['s'])
    expect((await fetch(`${onB}/v1/sessions/s`)).status).toBe(404)
  })
})
