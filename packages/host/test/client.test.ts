import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createClient, HostClientError, type StreamFrame } from '../src/client.js'
import { listen, type Host, type RunningServer } from '../src/index.js'
import { makeHost, stepGate, tempDir } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let host: Host
let server: RunningServer
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof makeHost>['store']
const token = 't'.repeat(40)

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  ;({ host, store } = makeHost(dir, () => [{ text: 'q'.repeat(80), chunkSize: 1, delayMs: 10 }], { auth: { token } }))
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
})
afterEach(async () => {
  await server.close()
  await host.close()
  await store.close()
  await cleanup()
})

/**
 * A fetch whose first stream response breaks once it has passed on an event frame, as a dropped
 * connection would; `reconnected` is called when the second stream is asked for.
 */
function flakyFetch(reconnected: () => void = () => {}): { fetch: typeof fetch; streams: string[] } {
  const streams: string[] = []
  const decoder = new TextDecoder()
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const url = String(input)
    if (!url.includes('/stream')) return response
    streams.push(url)
    if (streams.length === 2) reconnected()
    if (streams.length > 1 || !response.body) return response
    const reader = response.body.getReader()
    let eventsPassed = false
    const broken = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (eventsPassed) {
          await reader.cancel()
          controller.error(new Error('connection reset'))
          return
        }
        const { done, value } = await reader.read()
        if (done) return controller.close()
        if (decoder.decode(value).includes('event: session.event')) eventsPassed = true
        controller.enqueue(value)
      },
    })
    return new Response(broken, { status: response.status, headers: response.headers })
  }
  return { fetch: wrapped, streams }
}

describe('@bosun/host/client', () => {
  it('drives a session and resumes its stream by the last seq after a dropped connection', async () => {
    // The turn is held at its step until the stream has reconnected: its end cannot reach the
    // first stream before the drop, however slowly the durable send came back.
    const gate = stepGate()
    const gated = makeHost(join(dir, 'gated'), () => [{ text: 'q'.repeat(80), chunkSize: 1, delayMs: 10 }], { auth: { token } }, [gate.plugin])
    const gatedServer = await listen(gated.host, { hostname: '127.0.0.1', port: 0, hasToken: true })
    try {
      await resumesAfterDrop(gatedServer.url, () => gate.open())
    } finally {
      await gatedServer.close()
      await gated.host.close()
      await gated.store.close()
    }
  })

  async function resumesAfterDrop(url: string, reconnected: () => void): Promise<void> {
    const flaky = flakyFetch(reconnected)
    const client = createClient({ baseUrl: url, token, fetch: flaky.fetch })
    expect((await client.host()).auth).toBe('bearer')
    await client.createSession('c')
    const receipt = await client.send('c', { content: 'go', clientMessageId: 'k1' }, { waitDurable: true })
    expect(receipt).toMatchObject({ messageId: 'k1', durable: true })
    expect((await client.send('c', { content: 'go', clientMessageId: 'k1' })).duplicate).toBe(true)
    const controller = new AbortController()
    const frames: StreamFrame[] = []
    for await (const frame of client.stream('c', { signal: controller.signal, retry: { initialMs: 10 } })) {
      frames.push(frame)
      if (frame.event === 'session.event' && frame.data.type === 'turn/end') controller.abort()
    }
    expect(flaky.streams.length).toBeGreaterThan(1)
    expect(flaky.streams[1]).toMatch(/after=\d+/)
    const seqs = frames.flatMap((f) => (f.event === 'session.event' ? [f.data.seq] : []))
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i))
    expect(await client.messageStatus('c', 'k1')).toMatchObject({ state: 'claimed', turnEnd: 'completed' })
    expect((await client.listSessions()).map((s) => s.id)).toEqual(['c'])
  }

  it('starts over with a reset frame when a restarted host no longer holds the last event it streamed', async () => {
    // Host A streams a turn; then "restarts" as host B whose log for the same id holds another,
    // longer history (what a host killed before its flush, then repaired and resumed, can have).
    const other = await tempDir()
    try {
      const { host: b, store: storeB } = makeHost(other.dir, () => [{ text: 'a different answer, and a longer one' }], { auth: { token } })
      const serverB = await listen(b, { hostname: '127.0.0.1', port: 0, hasToken: true })
      const seed = createClient({ baseUrl: serverB.url, token })
      await seed.createSession('c')
      await seed.send('c', { content: 'first, on B' }, { waitDurable: true })
      await seed.send('c', { content: 'second, on B' }, { waitDurable: true })
      let target = server.url
      let streams = 0
      let broke = false
      const routed: typeof fetch = async (input, init) => {
        const url = new URL(String(input))
        const response = await fetch(`${target}${url.pathname}${url.search}`, init)
        if (!url.pathname.endsWith('/stream') || ++streams > 1 || !response.body) return response
        // The first stream drops as soon as host A's turn has ended: the "crash".
        const reader = response.body.getReader()
        const decoder = new TextDecoder()
        const dropping = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read()
            if (done) return controller.close()
            controller.enqueue(value)
            if (decoder.decode(value, { stream: true }).includes('"turn/end"')) {
              target = serverB.url
              broke = true
              await reader.cancel()
              controller.error(new Error('connection reset'))
            }
          },
        })
        return new Response(dropping, { status: response.status, headers: response.headers })
      }
      const client = createClient({ baseUrl: 'http://bosun.test', token, fetch: routed })
      await client.createSession('c')
      await client.send('c', { content: 'go' }, { waitDurable: true })
      const bEvents = (await seed.events('c')).events
      const controller = new AbortController()
      const frames: StreamFrame[] = []
      for await (const frame of client.stream('c', { signal: controller.signal, retry: { initialMs: 10 } })) {
        frames.push(frame)
        const lastOfB = bEvents.at(-1)!
        if (frame.event === 'session.event' && frame.data.seq === lastOfB.seq && frame.data.time === lastOfB.time) controller.abort()
      }
      expect(broke).toBe(true)
      const reset = frames.findIndex((f) => f.event === 'reset')
      expect(reset).toBeGreaterThan(0)
      // After the reset: host B's whole log, in order, from seq 0, exactly as B stores it.
      const replayed = frames.slice(reset + 1).flatMap((f) => (f.event === 'session.event' ? [f.data] : []))
      expect(replayed).toEqual(bEvents)
      await serverB.close()
      await b.close()
      await storeB.close()
    } finally {
      await other.cleanup()
    }
  })

  it('while the host is away, keeps trying the stream itself (what a caller counts as attempts), then resumes without a reset', async () => {
    await createClient({ baseUrl: server.url, token }).createSession('away')
    let streams = 0
    let down = 0
    const calls: string[] = []
    const wrapped: typeof fetch = async (input, init) => {
      const url = String(input)
      calls.push(url.includes('/stream') ? 'stream' : 'other')
      if (url.includes('/stream') && ++streams > 1 && down < 3) {
        down++
        throw new TypeError('fetch failed') // connection refused: the host is down
      }
      const response = await fetch(input, init)
      if (!url.includes('/stream') || streams > 1 || !response.body) return response
      // The first stream breaks once turn 1 has ended.
      const reader = response.body.getReader()
      const decoder = new TextDecoder()
      return new Response(new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read()
          if (done) return controller.close()
          controller.enqueue(value)
          if (decoder.decode(value, { stream: true }).includes('"turn/end"')) {
            await reader.cancel()
            controller.error(new Error('connection reset'))
          }
        },
      }), { status: response.status, headers: response.headers })
    }
    const client = createClient({ baseUrl: server.url, token, fetch: wrapped })
    await client.send('away', { content: 'one' }, { waitDurable: true })
    const controller = new AbortController()
    const frames: StreamFrame[] = []
    let sentSecond = false
    for await (const frame of client.stream('away', { signal: controller.signal, retry: { initialMs: 5, maxMs: 20 } })) {
      frames.push(frame)
      if (down === 3 && !sentSecond) {
        sentSecond = true
        await client.send('away', { content: 'two' })
      }
      const ends = frames.filter((f) => f.event === 'session.event' && f.data.type === 'turn/end').length
      if (ends === 2) controller.abort()
    }
    // Three refused stream attempts in a row, no other request between them (no silent check loop).
    const firstDown = calls.indexOf('stream', calls.indexOf('stream') + 1)
    expect(calls.slice(firstDown, firstDown + 3)).toEqual(['stream', 'stream', 'stream'])
    expect(frames.some((f) => f.event === 'reset')).toBe(false)
    const seqs = frames.flatMap((f) => (f.event === 'session.event' ? [f.data.seq] : []))
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i))
  })

  it('throws HostClientError with the stable code', async () => {
    const client = createClient({ baseUrl: server.url, token })
    await expect(client.getSession('missing')).rejects.toMatchObject({ status: 404, code: 'session-not-found' })
    const anonymous = createClient({ baseUrl: server.url })
    const error = await anonymous.host().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HostClientError)
    expect(error).toMatchObject({ status: 401, code: 'not-authorized' })
    const iterator = anonymous.stream('c')[Symbol.asyncIterator]()
    await expect(iterator.next()).rejects.toMatchObject({ code: 'not-authorized' })
  })
})
