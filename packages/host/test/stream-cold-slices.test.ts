// A cold session's stream (cold-stream.ts) makes its hello from the stored log it read: the fold
// up to the cursor, the queues, status and finished steps at the end, the fingerprint. That pass
// must give the event loop back a slice at a time — one request must not hold the host, every
// other session's stream and turn, for the length of a long log — and send the same frames.
// Real JSONL files, a real host on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import type { Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { listen } from '../src/index.js'
import { SLICE_EVENTS } from '../src/log-prefix.js'
import { json, makeHost, perTest, req, SseReader, waitFor, type Frame } from './helpers.js'

const work = perTest()
const BATCH = 64

/**
 * The session's stored events are read through a proxy that notes, for every event read, which
 * turn of the event loop it was read in (a setImmediate ticker counts them): `longest` is the
 * most events read without the event loop turning.
 */
function watchedStore(dir: string) {
  const inner = jsonlStore({ dir })
  const watch = { tick: 0, run: 0, lastTick: -1, longest: 0, reads: 0 }
  const note = () => {
    watch.reads++
    watch.run = watch.lastTick === watch.tick ? watch.run + 1 : 1
    watch.lastTick = watch.tick
    watch.longest = Math.max(watch.longest, watch.run)
  }
  const read: Store['read'] = async (id) => {
    const stored = await inner.read!(id)
    if (stored === undefined) return undefined
    const events = new Proxy(stored.events, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) note()
        return Reflect.get(target, key, receiver)
      },
    })
    return { ...stored, events }
  }
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === 'read') return read
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  let ticking = true
  const tick = () => {
    watch.tick++
    if (ticking) setImmediate(tick)
  }
  setImmediate(tick)
  return { store, watch, stop: () => (ticking = false), reset: () => Object.assign(watch, { run: 0, lastTick: -1, longest: 0, reads: 0 }) }
}

/** A stored session of 10,000+ events (one long answer in one-character chunks), an inject waiting in next-step; no host has it open. */
async function storedLongSession(): Promise<number> {
  const { host, store } = makeHost(work.dir, () => [{ text: 'x'.repeat(10 * SLICE_EVENTS), chunkSize: 1 }, { text: 'second' }])
  await req(host, 'POST', '/v1/sessions', { id: 's' })
  await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
  await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/s/messages/m1'))).turnEnd === 'completed', 120_000, 'the long turn')
  await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
  await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/s/messages/m2'))).turnEnd === 'completed', 30_000, 'turn 2')
  // An inject waits in next-step without waking the agent: the hello's queues are not empty.
  await req(host, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'i1', content: 'context', delivery: 'inject' })
  const lastSeq = (await json(req(host, 'GET', '/v1/sessions/s'))).lastSeq as number
  await host.close()
  // Else its journal file stays open until the garbage collector closes it.
  await store.close()
  return lastSeq
}

const lastId = (seq: number) => (frames: Frame[]) => frames.some((f) => f.id === String(seq))
/**
 * The frames without keep-alive comments: the host sends one every `keepAliveMs` (200 here) that
 * nothing else is sent, so on a busy machine one can fall into a cold stream's slow hello and not
 * into the live one's (Node 24 under load: 10,033 frames against 10,034).
 */
const events = (frames: Frame[]): Frame[] => frames.filter((f) => f.event !== 'comment')

async function frames(url: string, path: string, headers: Record<string, string>, until: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const stream = new SseReader(await fetch(`${url}${path}`, { headers }))
  const read = await stream.until((f) => until(events(f)), 60_000)
  await stream.cancel()
  return events(read)
}

describe('host: a cold stream over a long stored log', () => {
  it('makes its hello a slice per macrotask and sends the frames the live path sends', async () => {
    const last = await storedLongSession()
    expect(last).toBeGreaterThan(10 * SLICE_EVENTS)
    const watched = watchedStore(work.dir)
    try {
      const { host } = makeHost(work.dir, () => [], { store: watched.store, limits: { keepAliveMs: 200, streamBatch: BATCH } })
      const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
      // The store after the server (the list closes in reverse): a store left open keeps its journal file open.
      work.closing.push(watched.store, server)

      // At the tail nothing is replayed: every event read is the hello's pass (fold, queues,
      // status, finished steps, fingerprint), and no run of reads may span more than two slices
      // (the fold's last part and the fingerprint's first slice share a macrotask).
      const cases: { path: string; headers: Record<string, string>; until: (f: Frame[]) => boolean }[] = [
        { path: '/v1/sessions/s/stream', headers: { 'last-event-id': String(last) }, until: (f: Frame[]) => f.length >= 1 },
        { path: '/v1/sessions/s/stream?chunks=false', headers: { 'last-event-id': '4321' }, until: lastId(last) },
        { path: '/v1/sessions/s/stream', headers: {}, until: lastId(last) },
      ]
      const cold: Frame[][] = []
      for (const [i, { path, headers, until }] of cases.entries()) {
        watched.reset()
        cold.push(await frames(server.url, path, headers, until))
        expect(await host.sessions.peek('s')).toBeUndefined()
        if (i === 0) {
          expect(watched.watch.reads).toBeGreaterThan(2 * last)
          expect(watched.watch.longest).toBeLessThanOrEqual(2 * SLICE_EVENTS)
        }
      }
      expect(cold[0]![0]!.data).toMatchObject({ lastSeq: last, status: 'idle', inbox: { 'next-step': [{ id: 'i1' }] }, prefix: { seq: last } })

      // The same requests once the session is live: the same frames, hello included.
      await host.sessions.use('s')
      for (const [i, { path, headers, until }] of cases.entries()) {
        expect(cold[i]).toEqual(await frames(server.url, path, headers, until))
      }
    } finally {
      watched.stop()
    }
  }, 240_000)
})
