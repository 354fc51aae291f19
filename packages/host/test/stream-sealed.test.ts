import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sealIdleSessions } from '@bosun/core'
import { listen, type Host, type RunningServer } from '../src/index.js'
import { eventSeqs, makeHost, SseReader, tempDir, type Frame } from './helpers.js'

// A live stream kept open across the idle sweep's seal of its session (core: sealed log pages).
// Once sealed, `session.events` is a new view and an array read before stops growing: a stream
// that kept that array would send nothing after the seal.

let cleanup: () => Promise<void>
let host: Host
let server: RunningServer
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof makeHost>['store']

beforeEach(async () => {
  let dir: string
  ;({ dir, cleanup } = await tempDir())
  ;({ host, store } = makeHost(dir, () => [{ text: 'first' }, { text: 'second' }]))
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
})
afterEach(async () => {
  await server.close()
  await host.close()
  await store.close()
  await cleanup()
})

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

const turnEnded = (frames: Frame[], turn: number) =>
  frames.some((f) => f.event === 'session.event' && f.data.type === 'turn/end' && f.data.data.turn === turn)

describe('host: a live stream across a sealed log', () => {
  it('keeps sending the session\'s events after the sweep sealed its log', async () => {
    await post('/v1/sessions', { id: 's' })
    const stream = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    await stream.until((f) => f.length >= 1)
    await post('/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await stream.until((f) => turnEnded(f, 1))
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    await post('/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
    const frames = await stream.until((f) => turnEnded(f, 2))
    const seqs = eventSeqs(frames)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i))
    await stream.cancel()
  })
})
