import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listen, type Host, type RunningServer } from '../src/index.js'
import { eventSeqs, json, makeHost, SseReader, tempDir, waitFor, type Frame } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let host: Host
let server: RunningServer
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof makeHost>['store']

const slow = () => [{ text: 'x'.repeat(60), chunkSize: 1, delayMs: 15 }]

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  ;({ host, store } = makeHost(dir, slow))
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
})
afterEach(async () => {
  await server.close()
  await host.close()
  await store.close()
  await cleanup()
})

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

async function open(path: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<SseReader> {
  const response = await fetch(`${server.url}${path}`, { headers, ...(signal ? { signal } : {}) })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/event-stream')
  expect(response.headers.get('x-accel-buffering')).toBe('no')
  return new SseReader(response)
}

const turnEnded = (frames: Frame[], turn: number) =>
  frames.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.data.turn === turn)

function contiguous(seqs: number[]): void {
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i))
}

describe('host: SSE streams', () => {
  it('sends hello, replays from seq 0, follows live with derived frames and keep-alives', async () => {
    await post('/v1/sessions', { id: 's' })
    const stream = await open('/v1/sessions/s/stream')
    const [hello] = await stream.until((f) => f.length >= 1)
    expect(hello).toMatchObject({ event: 'hello', data: { lastSeq: -1, status: 'idle' } })
    expect(hello!.id).toBeUndefined()
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    const frames = await stream.until((f) => turnEnded(f, 1))
    contiguous(eventSeqs(frames))
    expect(eventSeqs(frames)[0]).toBe(0)
    const inbox = frames.filter((f) => f.event === 'session.inbox')
    expect(inbox[0]!.data['next-turn'].map((m: { id: string }) => m.id)).toEqual(['m1'])
    expect(inbox[0]!.id).toBeUndefined()
    expect(frames.filter((f) => f.event === 'session.status').map((f) => f.data.status)).toEqual(['running', 'idle'])
    await stream.until((f) => f.some((x) => x.event === 'comment' && x.comment === 'keep-alive'))
    await stream.cancel()
  })

  it('resumes by Last-Event-ID after the socket dies mid-turn: no gap, no duplicate', async () => {
    await post('/v1/sessions', { id: 's' })
    const controller = new AbortController()
    const first = await open('/v1/sessions/s/stream', {}, controller.signal)
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    const before = await first.until((f) => f.filter((x) => x.event === 'session.event' && x.data.type === 'assistant/chunk').length >= 5)
    controller.abort() // the socket dies mid-turn
    const seen = eventSeqs(before)
    const last = seen[seen.length - 1]!
    const second = await open('/v1/sessions/s/stream', { 'last-event-id': String(last) })
    const after = await second.until((f) => turnEnded(f, 1))
    const resumed = eventSeqs(after)
    expect(resumed[0]).toBe(last + 1)
    contiguous([...seen, ...resumed])
    // The disconnect canceled nothing: the turn completed.
    const end = after.find((f) => f.event === 'session.event' && f.data.type === 'turn/end')!
    expect(end.data.data.reason.kind).toBe('completed')
    await second.cancel()
    // ?after= works the same, and ?from=tail is live only.
    const byQuery = await open(`/v1/sessions/s/stream?after=${last}`)
    const replay = await byQuery.until((f) => turnEnded(f, 1))
    expect(eventSeqs(replay)[0]).toBe(last + 1)
    await byQuery.cancel()
    const tail = await open('/v1/sessions/s/stream?from=tail')
    const [hello] = await tail.until((f) => f.length >= 1)
    await post('/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'again' })
    const live = await tail.until((f) => turnEnded(f, 2))
    expect(eventSeqs(live)[0]).toBe(hello!.data.lastSeq + 1)
    await tail.cancel()
    // Every closed stream released its hold on the session (the server saw each disconnect).
    await waitFor(async () => (await host.sessions.peek('s'))?.users === 0, 15_000, 'streams released')
  })

  it('?chunks=false replays finished steps as assistant/message only', async () => {
    await post('/v1/sessions', { id: 's' })
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    await waitFor(async () => (await json(fetch(`${server.url}/v1/sessions/s/messages/m1`))).turnEnd === 'completed')
    const stream = await open('/v1/sessions/s/stream?chunks=false')
    const frames = await stream.until((f) => turnEnded(f, 1))
    const types = frames.filter((f) => f.event === 'session.event').map((f) => f.data.type)
    expect(types).toContain('assistant/message')
    expect(types).not.toContain('assistant/chunk')
    await stream.cancel()
    const bad = await fetch(`${server.url}/v1/sessions/s/stream?chunks=maybe`)
    expect(bad.status).toBe(400)
  })

  it('two subscribers converge on the same frames', async () => {
    await post('/v1/sessions', { id: 's' })
    const a = await open('/v1/sessions/s/stream')
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    const b = await open('/v1/sessions/s/stream')
    const fa = await a.until((f) => turnEnded(f, 1))
    const fb = await b.until((f) => turnEnded(f, 1))
    const strip = (frames: Frame[]) => frames.filter((f) => f.event !== 'hello' && f.event !== 'comment')
    expect(strip(fb)).toEqual(strip(fa))
    await a.cancel()
    await b.cancel()
  })

  it('a paused subscriber does not stop the session from finishing its turn', async () => {
    await post('/v1/sessions', { id: 's' })
    const paused = await open('/v1/sessions/s/stream')
    await paused.until((f) => f.length >= 1) // reads the hello, then stops reading
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    await waitFor(async () => {
      const snap = await json(fetch(`${server.url}/v1/sessions/s`))
      return snap.status === 'idle' && snap.lastSeq > 60
    }, 20_000, 'the turn to finish')
    // When it reads again, it gets everything, in order.
    const frames = await paused.until((f) => turnEnded(f, 1))
    contiguous(eventSeqs(frames))
    await paused.cancel()
  })

  it('a paused subscriber whose socket is full does not hold the session back', async () => {
    // ~4000 chunk events (well over a loopback socket's buffers) with no delay between them.
    const big = makeHost(dir, () => [{ text: 'y'.repeat(4000), chunkSize: 1 }])
    const bigServer = await listen(big.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    try {
      await fetch(`${bigServer.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"big"}' })
      const response = await fetch(`${bigServer.url}/v1/sessions/big/stream`)
      const paused = new SseReader(response)
      await paused.until((f) => f.length >= 1)
      await fetch(`${bigServer.url}/v1/sessions/big/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"clientMessageId":"m","content":"go"}' })
      const live = (await big.host.sessions.peek('big'))!
      await waitFor(() => live.agent.status === 'idle' && live.agent.session.length > 4000, 30_000, 'the turn to finish with the subscriber paused')
      const frames = await paused.until((f) => turnEnded(f, 1), 30_000)
      contiguous(eventSeqs(frames))
      expect(eventSeqs(frames)[0]).toBe(0)
      await paused.cancel()
    } finally {
      await bigServer.close()
      await big.host.close()
      await big.store.close()
    }
  })

  it('the host stream feeds session lists: added, status and queue counts', async () => {
    const feed = await open('/v1/stream')
    const [hello] = await feed.until((f) => f.length >= 1)
    expect(hello).toMatchObject({ event: 'hello', data: { sessions: [] } })
    await post('/v1/sessions', { id: 'listed' })
    await feed.until((f) => f.some((x) => x.event === 'session.added' && x.data.id === 'listed'))
    await post('/v1/sessions/listed/messages', { clientMessageId: 'm', content: 'go' })
    const frames = await feed.until((f) => f.some((x) => x.event === 'session.status' && x.data.id === 'listed' && x.data.status === 'running'))
    const statuses = frames.filter((x) => x.event === 'session.status' && x.data.id === 'listed')
    expect(statuses.at(-1)!.data).toMatchObject({ loaded: true, queue: { 'next-turn': expect.any(Number) } })
    await feed.until((f) => f.some((x) => x.event === 'session.status' && x.data.id === 'listed' && x.data.status === 'idle' && x.data.lastSeq > 10))
    await feed.cancel()
  })

  it('refuses a non-loopback bind without a token', async () => {
    await expect(listen(host, { hostname: '0.0.0.0', port: 0, hasToken: false })).rejects.toThrow(/without a token/)
  })
})
