// The reconnect fingerprint (client-log-hash.ts, log-prefix.ts) is computed from the same JSON on
// both sides: text outside ASCII (é, 😀, U+2028/2029, NUL, a lone surrogate, CR LF), the stream
// read a byte at a time, and a host restarted over the same file (a cold stream). Real host on
// 127.0.0.1 (JSONL store).
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createClient, type StreamFrame, type WireEvent } from '../src/client.js'
import { createHost, listen, type RunningServer } from '../src/index.js'
import { perTest } from './helpers.js'

const token = 'r'.repeat(40)
const state = perTest()

async function serve(dir: string, text = 'an answer in chunks'): Promise<RunningServer> {
  // Closed last (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir })
  state.closing.push(store)
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text, chunkSize: 4 }] }), store, sessionId }),
    auth: { token },
    limits: { keepAliveMs: 200 },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  state.closing.push(server)
  return server
}

/** Runs one turn on session `c` (message `id`) and answers the log once it has ended. */
async function turn(url: string, id: string): Promise<WireEvent[]> {
  const client = createClient({ baseUrl: url, token })
  await client.send('c', { content: id, clientMessageId: id }, { waitDurable: true })
  for (;;) {
    const status = await client.messageStatus('c', id)
    if ('turnEnd' in status && status.turnEnd !== undefined) break
    await new Promise((resolve) => setImmediate(resolve))
  }
  return (await client.events('c')).events
}

describe('the fingerprint of a log with text outside ASCII', () => {
  it('is the same on the client, reading the stream a byte at a time, as on the host restarted over the same file', async () => {
    const text = 'é 😀 \u2028 \u2029 \u0000 \ud800 lone, 中文 \r\n end'
    const dir = `${state.dir}/u`
    let server = await serve(dir, text)
    await createClient({ baseUrl: server.url, token }).createSession('c')
    const events = await turn(server.url, 'm0')
    let target = server.url
    let streams = 0
    const routed: typeof fetch = async (input, init) => {
      const url = new URL(String(input))
      const response = await fetch(`${target}${url.pathname}${url.search}`, init)
      if (!url.pathname.endsWith('/stream')) return response
      const reader = response.body!.getReader()
      const first = ++streams === 1
      let pending = new Uint8Array(0)
      let seen = ''
      const decoder = new TextDecoder()
      return new Response(new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (pending.length === 0) {
            if (first && seen.includes('"turn/end"')) {
              // Dropped at the turn's end; the host restarts over the same file (a cold stream).
              await reader.cancel()
              await server.close()
              server = await serve(dir, text)
              target = server.url
              return controller.error(new Error('connection reset'))
            }
            const { done, value } = await reader.read()
            if (done) return controller.close()
            seen += decoder.decode(value, { stream: true })
            pending = value
          }
          // One byte at a time: multi-byte characters arrive split.
          controller.enqueue(pending.slice(0, 1))
          pending = pending.slice(1)
        },
      }, { highWaterMark: 0 }), { status: response.status, headers: response.headers })
    }
    const client = createClient({ baseUrl: 'http://bosun.test', token, fetch: routed })
    const controller = new AbortController()
    const frames: StreamFrame[] = []
    for await (const frame of client.stream('c', { signal: controller.signal, retry: { initialMs: 5, maxMs: 50 } })) {
      frames.push(frame)
      if (frame.event === 'reset' || frames.filter((f) => f.event === 'hello').length === 2) controller.abort()
    }
    expect(streams).toBe(2)
    expect(frames.filter((f) => f.event === 'reset')).toEqual([])
    const message = events.find((e) => e.type === 'assistant/message')!
    expect(JSON.stringify(message.data)).toContain('\\ud800')
    expect(frames.flatMap((f) => (f.event === 'session.event' ? [f.data] : []))).toEqual(events)
  })
})
