// A client that stops reading its stream is disconnected once it has not drained for
// `limits.streamStallMs`: before, the stream waited for its socket to drain for good — it kept its
// slot, its hold on the session and its connection. The client reconnects with Last-Event-ID and
// gets the rest, nothing lost. A real socket that stops reading (a raw `net` client, paused);
// every wait is for a condition.
import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { listen, StreamStalledError } from '../src/index.js'
import { InboxFold } from '../src/log.js'
import { readFrames } from '../src/stream.js'
import { eventSeqs, makeHost, perTest, req, SseReader, waitFor } from './helpers.js'
import { post } from './stream-helpers.js'

const t = perTest()

/** Turns of ~800 KB each (a 400 KB answer in one chunk, then its message): ~20 MB of log, more than a paused socket's buffers take. */
const BIG = () => Array.from({ length: 25 }, (_, i) => ({ text: String.fromCharCode(97 + i).repeat(400_000), chunkSize: 400_000 }))

/** The body of a chunked HTTP/1.1 answer, as far as it came (a chunk cut short is kept as far as it came). */
function dechunk(raw: Buffer): string {
  let at = raw.indexOf('\r\n\r\n') + 4
  const parts: Buffer[] = []
  for (;;) {
    const line = raw.indexOf('\r\n', at)
    if (line < 0) break
    const size = parseInt(raw.subarray(at, line).toString(), 16)
    if (!(size > 0)) break
    const start = line + 2
    parts.push(raw.subarray(start, Math.min(raw.length, start + size)))
    if (start + size > raw.length) break
    at = start + size + 2
  }
  return Buffer.concat(parts).toString()
}

/** The seqs of the whole `session.event` frames of an SSE body (a frame cut short is left out). */
function wholeFrameSeqs(body: string): number[] {
  const frames = body.split('\n\n').slice(0, -1)
  return frames.flatMap((frame) => (frame.startsWith('event: session.event\n') ? [Number(/^id: (\d+)$/m.exec(frame)![1])] : []))
}

describe('host: a stream whose client does not drain', () => {
  it('is closed after limits.streamStallMs — its slot and its hold on the session let go — and resumes with Last-Event-ID, nothing lost', { timeout: 120_000 }, async () => {
    const { host, store } = makeHost(t.dir, BIG, { limits: { streamStallMs: 3000, keepAliveMs: 200 } })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
    t.closing.push(store, host, server)
    expect((await post(`${server.url}/v1/sessions`, { id: 's' })).status).toBe(201)
    for (let i = 0; i < 25; i++) expect((await post(`${server.url}/v1/sessions/s/messages`, { clientMessageId: `m-${i}`, content: `question ${i}` })).status).toBe(202)
    const live = (await host.sessions.peek('s'))!
    await waitFor(() => live.agent.session.events.filter((e) => e.type === 'turn/end').length === 25 && live.agent.status === 'idle', 60_000, 'the 25 turns to end')
    const lastSeq = live.agent.session.length - 1

    // A client that asks for the whole log and never reads: its socket is paused before the answer comes.
    const received: Buffer[] = []
    const socket: Socket = connect(server.port, '127.0.0.1')
    socket.pause()
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.on('error', () => {})
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.write(`GET /v1/sessions/s/stream HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    await waitFor(() => host.openStreams === 1 && live.users === 1, 15_000, 'the stream to open')

    // Its buffers fill, it does not drain: the stream is closed, its slot and the session's hold given back.
    await waitFor(() => host.openStreams === 0 && live.users === 0, 60_000, () => `the stalled stream to be closed (open streams ${host.openStreams}, session users ${live.users})`)

    // The client reads what it was sent before the close; the frames it has whole end at some seq.
    socket.resume()
    await closed
    const seqs = wholeFrameSeqs(dechunk(Buffer.concat(received)))
    expect(seqs.length).toBeGreaterThan(0)
    expect(seqs.at(-1)).toBeLessThan(lastSeq)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i))

    // It reconnects with the last id it has and gets the rest: every seq once.
    const resumed = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`, { headers: { 'last-event-id': String(seqs.at(-1)) } }))
    const rest = eventSeqs(await resumed.until((f) => eventSeqs(f).at(-1) === lastSeq, 60_000))
    await resumed.cancel()
    expect([...seqs, ...rest]).toEqual(Array.from({ length: lastSeq + 1 }, (_, i) => i))
  })

  it('holds one read of at most 64 KiB of frames (an event at least) ahead of its client, whatever the batch', () => {
    const events: SessionEvent[] = Array.from({ length: 6 }, (_, seq) => ({ seq, time: 0, type: 'assistant/message', data: { turn: 1, step: seq, text: 'x'.repeat(40_000) } }) as SessionEvent)
    const log = { events, finishedSteps: new Set<string>() }
    const read = (cursor: number) => readFrames(log, new InboxFold(0), cursor, { chunks: true, batch: 256 })
    // 40,000 characters an event: the read stops at the event that takes it past 64 KiB.
    expect(read(-1).cursor).toBe(1)
    expect(read(1).cursor).toBe(3)
    expect(read(3).cursor).toBe(5)
    expect(read(5)).toEqual({ out: '', cursor: 5 })
  })

  // The stop is counted in bytes, as the docs say (64 KiB): it was counted in UTF-16 units, so a
  // read of text outside ASCII held up to three times as much (a '€' is 1 unit, 3 bytes).
  it('counts the 64 KiB of a read in bytes of UTF-8, not characters', () => {
    const events: SessionEvent[] = Array.from({ length: 6 }, (_, seq) => ({ seq, time: 0, type: 'assistant/message', data: { turn: 1, step: seq, text: '€'.repeat(15_000) } }) as SessionEvent)
    const read = readFrames({ events, finishedSteps: new Set<string>() }, new InboxFold(0), -1, { chunks: true, batch: 256 })
    // 45,000 bytes (15,000 characters) an event: the second takes the read past 64 KiB.
    expect(read.cursor).toBe(1)
    expect(Buffer.byteLength(read.out)).toBeGreaterThanOrEqual(64 * 1024)
  })

  // In-process (no socket: host.fetch), a stall ended the stream as a normal end — `done`, which a
  // consumer cannot tell from the host ending it. It now fails the read with a stable code.
  it('in-process, a reader that stops taking the stream gets a stream-stalled error, and the slot is let go', { timeout: 60_000 }, async () => {
    const { host, store } = makeHost(t.dir, () => [], { limits: { streamStallMs: 300 } })
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const response = await req(host, 'GET', '/v1/sessions/s/stream')
    const reader = response.body!.getReader()
    expect((await reader.read()).done).toBe(false)
    // It reads no more: the stream is closed after streamStallMs.
    await waitFor(() => host.openStreams === 0, 30_000, 'the stalled stream to be closed')
    const error = await reader.read().then(() => undefined, (thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(StreamStalledError)
    expect((error as StreamStalledError).code).toBe('stream-stalled')
    expect((error as Error).message).toMatch(/limits\.streamStallMs/)
  })
})
