// `?from=tail` names where a stream starts the first time; an EventSource reconnects to the same
// URL and sends `Last-Event-ID` (the last seq it got): that cursor is where the reconnect resumes,
// or the events logged while it was away are never sent.
import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req, SseReader, waitFor } from './helpers.js'

const t = perTest()

describe('GET /v1/sessions/:id/stream?from=tail with Last-Event-ID (an EventSource reconnecting)', () => {
  it('resumes after Last-Event-ID, on a live session and on a cold one', async () => {
    const { host, store } = makeHost(t.dir, () => [{ text: 'one' }], { limits: { idleMs: 30, keepAliveMs: 2000 } })
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    // Live: another stream holds the session open (a session streamed is never retired). Opened
    // before the turn: opened after it, the session could retire first (idleMs 30, a loaded
    // machine) and the stream would be a cold one — it holds the session once the send wakes it.
    const holding = new SseReader(await req(host, 'GET', '/v1/sessions/s/stream?from=tail'))
    await holding.until((f) => f.some((x) => x.event === 'hello'))
    expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'hi', clientMessageId: 'a' })).status).toBe(202)
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/s'))).status === 'idle')
    await waitFor(() => host.sessions.liveIds().includes('s'))
    const { lastSeq } = await json(req(host, 'GET', '/v1/sessions/s'))
    expect(lastSeq).toBeGreaterThan(3)
    const expected = Array.from({ length: lastSeq - 2 }, (_, i) => String(i + 3))

    // The client got seq 2 on its first connection to ?from=tail, then lost it.
    const reconnect = async (): Promise<string[]> => {
      const stream = new SseReader(await req(host, 'GET', '/v1/sessions/s/stream?from=tail', undefined, { 'last-event-id': '2' }))
      const frames = await stream.until((f) => f.some((x) => x.comment === 'keep-alive') || f.filter((x) => x.event === 'session.event').length >= expected.length)
      await stream.cancel()
      return frames.filter((f) => f.event === 'session.event').map((f) => f.id!)
    }
    expect(host.sessions.liveIds()).toEqual(['s'])
    expect(await reconnect(), 'live').toEqual(expected)
    // Retired: the stream is served from the stored log.
    await holding.cancel()
    await waitFor(() => host.sessions.liveIds().length === 0)
    expect(await reconnect(), 'cold').toEqual(expected)
  })
})
