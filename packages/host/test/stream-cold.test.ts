// A cold session's stream (cold-stream.ts): served from the stored log without resuming the
// session, the same frames as the live path, and handed over to the live log without gap or
// duplicate when the session goes live while it is open. Real JSONL files, real HTTP on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { memoryStore } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { listen, type Host, type RunningServer } from '../src/index.js'
import { eventSeqs, json, makeHost, perTest, req, SseReader, waitFor, type Frame } from './helpers.js'

const work = perTest()

// The first host's turn 2 streams for minutes (the test stops it); later hosts answer quickly.
const firstHost = () => [{ text: 'x'.repeat(40), chunkSize: 2, delayMs: 5 }, { text: 'y'.repeat(4000), chunkSize: 1, delayMs: 50 }]
const laterHosts = () => [{ text: 'third answer', chunkSize: 3, delayMs: 5 }, { text: 'fourth answer', chunkSize: 3, delayMs: 5 }]

async function start(streamBatch?: number, answers = laterHosts): Promise<{ host: Host; url: string }> {
  const { host, store } = makeHost(work.dir, answers, streamBatch === undefined ? {} : { limits: { keepAliveMs: 200, streamBatch } })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // The store stays listed when a test closes the server (pops it), and is closed at the test's
  // end: a store left open keeps its journal file open.
  work.closing.push(store, server)
  return { host, url: server.url }
}

function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
}

async function open(url: string, path: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const response = await fetch(`${url}${path}`, { headers })
  expect(response.status).toBe(200)
  return new SseReader(response)
}

const turnEnded = (frames: Frame[], turn: number) => frames.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.data.turn === turn)
const strip = (frames: Frame[]) => frames.filter((f) => f.event !== 'hello' && f.event !== 'comment')
const hasSeq = (seq: number) => (frames: Frame[]) => eventSeqs(frames).includes(seq)

/**
 * A stored session left by a host that closed: turn 1 completed (its chunks logged), turn 2
 * stopped with the queue kept, so a follow-up ("parked") waits in the inbox.
 */
async function storedSession(): Promise<number> {
  const { host, url } = await start(undefined, firstHost)
  await post(url, '/v1/sessions', { id: 's' })
  await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'first' })
  await waitFor(async () => (await json(fetch(`${url}/v1/sessions/s/messages/m1`))).turnEnd === 'completed', 15_000, 'turn 1')
  // A follow-up parked by a Stop that keeps the queue: turn 2 is aborted at its first step.
  await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'second' })
  await waitFor(async () => (await json(fetch(`${url}/v1/sessions/s`))).status === 'running', 15_000, 'turn 2 running')
  await post(url, '/v1/sessions/s/messages', { clientMessageId: 'parked', content: 'waits' })
  await post(url, '/v1/sessions/s/cancel', { keepInbox: true })
  await waitFor(async () => (await json(fetch(`${url}/v1/sessions/s`))).status === 'idle', 15_000, 'turn 2 stopped')
  const lastSeq = (await json(fetch(`${url}/v1/sessions/s`))).lastSeq as number
  await work.closing.pop()!.close()
  expect(host.sessions.liveIds()).toEqual([])
  return lastSeq
}

describe('host: the stream of a cold session', () => {
  it('replays the stored log without resuming the session: the same hello and frames as the live path', async () => {
    const lastSeq = await storedSession()
    for (const query of ['', '?chunks=false', '?after=5']) {
      // A new host on the same files each time: the session is cold again.
      const { host, url } = await start()
      const cold = await open(url, `/v1/sessions/s/stream${query}`)
      const coldFrames = await cold.until(hasSeq(lastSeq))
      await cold.cancel()
      // Not resumed: no agent was made for the stream.
      expect(await host.sessions.peek('s')).toBeUndefined()
      await host.sessions.use('s')
      const live = await open(url, `/v1/sessions/s/stream${query}`)
      const liveFrames = await live.until(hasSeq(lastSeq))
      await live.cancel()
      expect(coldFrames[0]).toEqual(liveFrames[0])
      expect(coldFrames[0]!.data).toMatchObject({ lastSeq, status: 'idle', inbox: { 'next-turn': [{ id: expect.any(String) }] } })
      expect(strip(coldFrames)).toEqual(strip(liveFrames))
      expect(strip(coldFrames).some((f) => f.event === 'session.inbox')).toBe(true)
      expect(eventSeqs(coldFrames)[0]).toBe(query === '?after=5' ? 6 : 0)
      await work.closing.pop()!.close()
    }
  })

  it('hands over to the live log when a message resumes the session: no gap, no duplicate, the derived frames follow', async () => {
    const lastSeq = await storedSession()
    const { host, url } = await start()
    const stream = await open(url, '/v1/sessions/s/stream')
    await stream.until(hasSeq(lastSeq))
    expect(await host.sessions.peek('s')).toBeUndefined()
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm3', content: 'wake up' })
    // The parked follow-up runs first (a new message resumes the queue), then m3.
    const frames = await stream.until((f) => turnEnded(f, 4))
    const seqs = eventSeqs(frames)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i))
    const live = (await host.sessions.peek('s'))!
    expect(seqs.at(-1)).toBe(live.agent.session.length - 1)
    const after = frames.slice(frames.findIndex((f) => f.id === String(lastSeq)) + 1)
    expect(after.filter((f) => f.event === 'session.status' && f.data.seq > lastSeq).map((f) => f.data.status)).toEqual(['running', 'idle', 'running', 'idle'])
    expect(after.some((f) => f.event === 'session.inbox' && f.data['next-turn'].some((m: { id: string }) => m.id === 'm3'))).toBe(true)
    // The stream held the live session while it streamed, and lets it go when it closes.
    expect(live.users).toBe(1)
    await stream.cancel()
    await waitFor(() => live.users === 0, 15_000, 'the stream to release the session')
  })

  it('hands over mid-replay: a reader that paused after the hello gets every event once, as a live stream sends them', async () => {
    const lastSeq = await storedSession()
    // Small batches: the replay is many reads, and the session goes live between two of them.
    const { host, url } = await start(4)
    // In process (no socket buffering ahead): the stream is read exactly as far as the reader pulls.
    const response = await req(host, 'GET', '/v1/sessions/s/stream')
    expect(response.status).toBe(200)
    const paused = new SseReader(response)
    const [hello] = await paused.until((f) => f.length >= 1)
    expect(hello!.data.lastSeq).toBe(lastSeq)
    await paused.until(hasSeq(3))
    expect(eventSeqs(paused.frames).at(-1)).toBeLessThan(lastSeq)
    await post(url, '/v1/sessions/s/messages', { clientMessageId: 'm3', content: 'wake up' })
    const live = (await host.sessions.peek('s'))!
    await waitFor(() => live.agent.status === 'idle' && live.agent.session.events.some((e) => e.type === 'turn/end' && (e.data as { turn: number }).turn === 4), 15_000, 'turn 4 to end')
    const end = live.agent.session.length - 1
    const frames = await paused.until(hasSeq(end))
    expect(eventSeqs(frames)).toEqual(Array.from({ length: end + 1 }, (_, i) => i))
    const fresh = await open(url, '/v1/sessions/s/stream')
    const reference = await fresh.until(hasSeq(end))
    expect(strip(frames)).toEqual(strip(reference))
    await paused.cancel()
    await fresh.cancel()
  })

  it('resumes a session a crash left mid-turn (recovery closes the turn), and follows the tail of a cold one', async () => {
    const store = jsonlStore({ dir: work.dir })
    const message = { id: 'lost', role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } }
    const events = [
      { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, inserted: [message] } },
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'user/message', data: message },
    ].map((event, seq) => ({ seq, time: Date.now(), ...event }))
    const created = await store.create({ id: 'crashed', version: 1, createdAt: Date.now() }, events as never)
    await created.writer.close()
    await (await store.create({ id: 'quiet', version: 1, createdAt: Date.now() })).writer.close()
    await store.close()
    const { host, url } = await start()
    const crashed = await open(url, '/v1/sessions/crashed/stream')
    const frames = await crashed.until((f) => f.some((x) => x.event === 'session.event' && x.data.type === 'turn/end' && x.data.data.reason.kind === 'interrupted'))
    expect(eventSeqs(frames).slice(0, 5)).toEqual([0, 1, 2, 3, 4])
    expect(await host.sessions.peek('crashed')).toBeDefined()
    await crashed.cancel()
    // ?from=tail of a cold session: the hello, then only what comes once it is live.
    const tail = await open(url, '/v1/sessions/quiet/stream?from=tail')
    const [hello] = await tail.until((f) => f.length >= 1)
    expect(hello!.data).toMatchObject({ lastSeq: -1, status: 'idle', inboxVersion: -1 })
    expect(await host.sessions.peek('quiet')).toBeUndefined()
    await post(url, '/v1/sessions/quiet/messages', { clientMessageId: 'q1', content: 'go' })
    const live = await tail.until((f) => turnEnded(f, 1))
    expect(eventSeqs(live)[0]).toBe(0)
    await tail.cancel()
  })

  it('refuses a cursor past the stored log and an unknown session without resuming anything; ends its cold streams when the host closes', async () => {
    const lastSeq = await storedSession()
    const { host, url } = await start()
    const past = await fetch(`${url}/v1/sessions/s/stream?after=${lastSeq + 5}`)
    expect(past.status).toBe(409)
    expect((await json(past)).error.code).toBe('replay-unavailable')
    const unknown = await fetch(`${url}/v1/sessions/nope/stream`)
    expect(unknown.status).toBe(404)
    expect(host.sessions.liveIds()).not.toContain('nope')
    const cold = await open(url, '/v1/sessions/s/stream')
    await cold.until(hasSeq(lastSeq))
    await host.close()
    await expect(cold.until(() => false)).rejects.toThrow('stream ended')
  })

  it('resumes the session when its store cannot read it without opening it (opening would repair a crash with no agent to wake)', async () => {
    const store = memoryStore()
    await (await store.create({ id: 'kept', version: 1, createdAt: Date.now() })).writer.close()
    const { host } = makeHost(work.dir, laterHosts, { store })
    work.closing.push(host)
    const response = await req(host, 'GET', '/v1/sessions/kept/stream')
    expect(response.status).toBe(200)
    expect(await host.sessions.peek('kept')).toBeDefined()
    await response.body!.cancel()
  })
})
