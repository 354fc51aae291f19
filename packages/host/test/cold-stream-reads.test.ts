// A cold stream (cold-stream.ts) whose session ran meanwhile reads only what is new after each
// change signal — a range from the end of the events it has (`Store.readEvents`) — never the
// whole stored log again: that cost a read of the whole history per change (per turn when the
// session runs elsewhere, O(log) each time). Order and seqs as cold-stream-missed-live.test.ts pins.
import { describe, expect, it } from 'vitest'
import { eventSeqs, makeHost, perTest, req, SseReader, waitFor } from './helpers.js'
import { countReads } from './store-reads.js'

const t = perTest()

describe('a cold stream whose session ran and was retired while the client was not reading', () => {
  it('reads only the events after those it has, once per change, and sends them all in order', async () => {
    // idleMs small: the session is retired soon after each turn. streamBatch 1: the replay is read
    // an event per pull, so the test holds the stream mid-replay (a slow client) while it runs.
    const { host, store } = makeHost(t.dir, () => [{ text: 'one' }, { text: 'two' }, { text: 'three' }], { limits: { idleMs: 30, streamBatch: 1, keepAliveMs: 2000 } })
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    const turnsEnded = async () => (await store.read!('s'))?.events.filter((e) => e.type === 'turn/end').length ?? 0
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'first', clientMessageId: 'a' })).status).toBe(202)
    await waitFor(async () => host.sessions.liveIds().length === 0 && (await turnsEnded()) === 1)
    const storedBefore = (await store.read!('s'))!.events.length

    const stream = new SseReader(await req(host, 'GET', '/v1/sessions/s/stream'))
    await stream.until((frames) => frames.some((f) => f.event === 'session.event'))
    const reads = countReads(store)

    // Two live periods, each retired again before the client reads on.
    for (const [i, content] of ['second', 'third'].entries()) {
      expect((await req(host, 'POST', '/v1/sessions/s/messages', { content, clientMessageId: `m-${i}` })).status).toBe(202)
      await waitFor(async () => host.sessions.liveIds().length === 0 && (await turnsEnded()) === i + 2)
    }
    const stored = (await store.read!('s'))!.events
    reads.reads = 0

    const frames = await stream.until((f) => f.some((x) => x.comment === 'keep-alive') || eventSeqs(f).length === stored.length)
    await stream.cancel()
    expect(eventSeqs(frames)).toEqual(stored.map((e) => e.seq))
    // The new events were read as ranges from where the stream's events ended: no whole read, nothing twice.
    expect(reads.reads).toBe(0)
    expect(reads.lowest).toBeGreaterThanOrEqual(storedBefore)
    expect(reads.events).toBe(stored.length - storedBefore)
  })
})
