// Open SSE streams are bounded (limits.streams): each holds a connection and its state for as long
// as the client keeps it, and nothing stopped clients opening them until the host ran out of
// memory or file descriptors. Real clients on 127.0.0.1; every wait is for a condition.
import { describe, expect, it } from 'vitest'
import { perTest, waitFor } from './helpers.js'
import { chat, hostLog, opened, post, serveHost } from './stream-helpers.js'

const t = perTest()
const log = hostLog()
const serve = (streams: number) => serveHost(t, { streams })
const refusals = () => log.lines('too-many-streams').length

describe('host: open SSE streams are bounded by limits.streams', () => {
  it('the stream over the limit is 503 too-many-streams with retry-after; a stream that ends, or whose client goes away, frees its slot', async () => {
    const { host, gate, url } = await serve(3)
    expect((await post(`${url}/v1/sessions`, { id: 's1' })).status).toBe(201)
    // Three kinds of stream: a chat turn (held at its first step), the host stream, a session stream.
    const turn = await opened(await post(`${url}/v1/ai-sdk/chat`, chat('c1')))
    const controller = new AbortController()
    await opened(await fetch(`${url}/v1/stream`, { signal: controller.signal }))
    await opened(await fetch(`${url}/v1/sessions/s1/stream`))
    expect(host.openStreams).toBe(3)

    const refused = await fetch(`${url}/v1/sessions/s1/stream`)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toEqual({ error: { code: 'too-many-streams', message: 'This host has 3 streams open, the most it serves at once: close a stream this client no longer reads, or retry in 5 s.', details: { limit: 3, retryAfter: 5 } } })
    // A refused chat POST admits nothing: its session was not even created.
    expect((await post(`${url}/v1/ai-sdk/chat`, chat('c2'))).status).toBe(503)
    expect((await fetch(`${url}/v1/sessions/c2`)).status).toBe(404)
    // The operator is told once, however many are refused.
    expect(refusals()).toBe(1)
    expect(log.lines('too-many-streams')[0]).toContain('limits.streams')

    // The chat turn ends: its stream ends, its slot is free.
    await waitFor(() => gate.waiting > 0, 15_000, 'the chat turn at its first step')
    gate.open()
    await waitFor(() => host.openStreams === 2, 15_000, () => `a slot freed by the ended chat stream (open: ${host.openStreams})`)
    await opened(await fetch(`${url}/v1/sessions/s1/stream`))
    expect((await fetch(`${url}/v1/stream`)).status).toBe(503)

    // The client of the host stream goes away: its slot is freed, the next stream is served.
    controller.abort()
    await waitFor(() => host.openStreams === 2, 15_000, () => `a slot freed by the aborted client (open: ${host.openStreams})`)
    await opened(await fetch(`${url}/v1/stream`))
    expect(host.openStreams).toBe(3)
    expect(refusals()).toBe(1)
    await turn.cancel()
  })

  it('an answer that is not a stream (an error, a 204) takes no slot', async () => {
    const { host, url } = await serve(1)
    expect((await post(`${url}/v1/sessions`, { id: 's1' })).status).toBe(201)
    expect((await fetch(`${url}/v1/sessions/s1/stream?after=99`)).status).toBe(409)
    expect((await fetch(`${url}/v1/sessions/bad..id/stream`)).status).toBe(400)
    expect((await fetch(`${url}/v1/ai-sdk/chat/nosuch/stream`)).status).toBe(204)
    expect((await post(`${url}/v1/ai-sdk/chat`, { id: 'x', messages: [] })).status).toBe(400)
    expect(host.openStreams).toBe(0)
    await opened(await fetch(`${url}/v1/sessions/s1/stream`))
    expect(host.openStreams).toBe(1)
  })

  it('a HEAD of a stream route makes no stream that outlives it (its subscription and hold are let go)', async () => {
    const { host, url } = await serve(1)
    expect((await post(`${url}/v1/sessions`, { id: 's1' })).status).toBe(201)
    for (let i = 0; i < 3; i++) {
      const head = await fetch(`${url}/v1/sessions/s1/stream`, { method: 'HEAD' })
      expect(head.status).toBe(200)
      expect(head.headers.get('content-type')).toContain('text/event-stream')
    }
    const live = (await host.sessions.peek('s1'))!
    expect(live.listeners.size).toBe(0)
    expect(live.users).toBe(0)
    expect(host.openStreams).toBe(0)
    await opened(await fetch(`${url}/v1/sessions/s1/stream`))
  })

  it('a session closing ends its streams and frees their slots; so does closing the host, for every stream', async () => {
    const { host, server, url } = await serve(5)
    expect((await post(`${url}/v1/sessions`, { id: 's1' })).status).toBe(201)
    expect((await post(`${url}/v1/sessions`, { id: 's2' })).status).toBe(201)
    const readers = [
      await opened(await fetch(`${url}/v1/sessions/s1/stream`)),
      await opened(await fetch(`${url}/v1/sessions/s1/stream`)),
      await opened(await fetch(`${url}/v1/sessions/s2/stream`)),
      await opened(await fetch(`${url}/v1/stream`)),
    ]
    expect(host.openStreams).toBe(4)
    // As when a cluster host loses a session's lease: the session is closed here, its streams end.
    await host.sessions.drop('s1')
    await waitFor(() => host.openStreams === 2, 15_000, () => `the slots of s1's streams freed (open: ${host.openStreams})`)
    await server.close()
    await waitFor(() => host.openStreams === 0, 15_000, () => `every slot freed (open: ${host.openStreams})`)
    for (const reader of readers) await reader.cancel()
  })

  it('limits.streams and limits.streamsPerClient are checked by the host options schema', async () => {
    const { createHost } = await import('../src/index.js')
    const { jsonlStore } = await import('@bosun/plugin-store-jsonl')
    const make = (limits: Record<string, unknown>) => () => createHost({ store: jsonlStore({ dir: t.dir }), agent: { model: {} as never }, limits })
    expect(make({ streams: 0 })).toThrow('Invalid options for createHost():\n  - $.limits.streams: must be >= 1 (found 0)')
    expect(make({ streams: 1.5 })).toThrow('Invalid options for createHost():\n  - $.limits.streams: must be an integer (found 1.5)')
    expect(make({ streamsPerClient: 0 })).toThrow('Invalid options for createHost():\n  - $.limits.streamsPerClient: must be >= 1 (found 0)')
    expect(make({ streamsPerClient: 2.5 })).toThrow('Invalid options for createHost():\n  - $.limits.streamsPerClient: must be an integer (found 2.5)')
  })
})
