import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req, SseReader, waitFor } from './helpers.js'

const t = perTest()

describe('a cold stream whose session went live and idle again while the stream was replaying', () => {
  it('sends what that live period logged: no gap until the client reconnects', async () => {
    // idleMs small: the session is retired again soon after its turn. streamBatch 1: the replay
    // is read an event per pull, so the test holds the stream mid-replay (a slow client).
    const { host, store } = makeHost(t.dir, () => [{ text: 'one' }, { text: 'two' }], { limits: { idleMs: 30, streamBatch: 1, keepAliveMs: 2000 } })
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'first', clientMessageId: 'a' })).status).toBe(202)
    await waitFor(async () => host.sessions.liveIds().length === 0 && (await store.read!('s'))?.events.some((e) => e.type === 'turn/end'))
    const storedBefore = (await store.read!('s'))!.events.length

    // Cold: streamed from the stored log. The client reads the hello and one replayed event, then stops reading.
    const stream = new SseReader(await req(host, 'GET', '/v1/sessions/s/stream'))
    await stream.until((frames) => frames.some((f) => f.event === 'session.event'))

    // Meanwhile the session goes live (a message), runs its turn and is retired again.
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'second', clientMessageId: 'b' })).status).toBe(202)
    await waitFor(async () => host.sessions.liveIds().length === 0 && ((await store.read!('s'))?.events.filter((e) => e.type === 'turn/end').length ?? 0) === 2)
    const stored = (await store.read!('s'))!.events
    expect(stored.length).toBeGreaterThan(storedBefore)

    // The client reads on: every stored event arrives, before the stream has nothing left and sends a keep-alive.
    const frames = await stream.until((f) => f.some((x) => x.comment === 'keep-alive') || f.filter((x) => x.event === 'session.event').length === stored.length)
    const seqs = frames.filter((f) => f.event === 'session.event').map((f) => Number(f.id))
    expect(seqs).toEqual(stored.map((e) => e.seq))
    expect((await json(req(host, 'GET', '/v1/sessions/s'))).lastSeq).toBe(stored.length - 1)
  })
})
