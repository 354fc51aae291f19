import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createClient, type StreamFrame, type StreamOptions, type WireEvent } from '../src/client.js'
import { createHost, listen, type RunningServer } from '../src/index.js'
import { perTest } from './helpers.js'

/**
 * The typed client's reconnect check against real hosts on 127.0.0.1: after a dropped
 * connection it must tell the log it streamed from another log under the same session id, by
 * the whole history up to its cursor, not by the last event alone.
 */
const token = 'r'.repeat(40)
const state = perTest()

/** A host over a JSONL store in `dir` whose clock stands still: two such logs agree on every `time`. */
async function serve(dir: string, answer: string): Promise<RunningServer> {
  // Closed after the server (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir })
  state.closing.push(store)
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: answer, chunkSize: 2 }] }), store, sessionId, now: () => 1_764_000_000_000 }),
    auth: { token },
    limits: { keepAliveMs: 200 },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  state.closing.push(server)
  return server
}

/** Runs each prompt as its own turn on session `c` of the host at `url` (made first unless `from` > 0: messages m<from>, …); answers its log. */
async function runTurns(url: string, prompts: string[], from = 0): Promise<WireEvent[]> {
  const client = createClient({ baseUrl: url, token })
  if (from === 0) await client.createSession('c')
  for (const [index, content] of prompts.entries()) {
    await client.send('c', { content, clientMessageId: `m${from + index}` }, { waitDurable: true })
    await untilEnded(client, `m${from + index}`)
  }
  return (await client.events('c')).events
}

/** Waits until the turn that took message `id` of session `c` has ended. */
async function untilEnded(client: ReturnType<typeof createClient>, id: string): Promise<void> {
  for (;;) {
    const status = await client.messageStatus('c', id)
    if ('turnEnd' in status && status.turnEnd !== undefined) return
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/**
 * Streams session `c` from `first` until its first turn has ended, drops the connection there
 * (as a host restart would) and reconnects to the host `second()` answers; reads until `done`.
 */
async function streamAcross(first: string, second: () => Promise<string>, done: (frames: StreamFrame[]) => boolean, options: StreamOptions = {}, older: false | 'older' | 'older, refusing the check' = false): Promise<StreamFrame[]> {
  const others: string[] = []
  let target = Promise.resolve(first)
  let streams = 0
  const routed: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    if (!url.pathname.endsWith('/stream')) others.push(url.pathname)
    if (older === 'older, refusing the check' && url.pathname.endsWith('/events')) return Response.json({ error: { code: 'not-authorized', message: 'Log in again.' } }, { status: 401 })
    const response = await fetch(`${await target}${url.pathname}${url.search}`, init)
    if (!url.pathname.endsWith('/stream') || !response.body) return response
    if (++streams > 1) return older === false ? response : withoutPrefix(response)
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let text = ''
    return new Response(new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done: ended, value } = await reader.read()
        if (ended) return controller.close()
        controller.enqueue(value)
        text += decoder.decode(value, { stream: true })
        if (text.includes('"turn/end"')) {
          target = second()
          await reader.cancel()
          controller.error(new Error('connection reset'))
        }
      },
    }), { status: response.status, headers: response.headers })
  }
  const client = createClient({ baseUrl: 'http://bosun.test', token, fetch: routed })
  const controller = new AbortController()
  const frames: StreamFrame[] = []
  for await (const frame of client.stream('c', { ...options, signal: controller.signal, retry: { initialMs: 5, maxMs: 50 } })) {
    frames.push(frame)
    if (done(frames)) controller.abort()
  }
  expect(streams).toBeGreaterThan(1)
  // The check rides on the new connection's hello: no other request (a host without `prefix`: one).
  expect(others).toEqual(older === false ? [] : ['/v1/sessions/c/events'])
  return frames
}

/** The stream as a host older than the fingerprint sends it: a hello without `prefix`. */
function withoutPrefix(response: Response): Response {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  const body = response.body!.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    // The hello is the stream's first write, whole.
    transform: (chunk, controller) => controller.enqueue(encoder.encode(decoder.decode(chunk, { stream: true }).replace(/,"prefix":\{[^}]*\}/, ''))),
  }))
  return new Response(body, { status: response.status, headers: response.headers })
}

const eventsOf = (frames: StreamFrame[]): WireEvent[] => frames.flatMap((f) => (f.event === 'session.event' ? [f.data] : []))

describe('the client after a reconnect', () => {
  it('starts over when the host now has a log that agrees at its last event but differs before it', async () => {
    // Host A ran "alpha"; host B (another history for the same id, e.g. a restarted memory host)
    // ran "bravo" and then "charlie". Same clock, same answer: at the end of turn 0 both logs hold
    // the same event (seq, time, type and data), but their user messages differ.
    const a = await serve(`${state.dir}/a`, 'same answer')
    const b = await serve(`${state.dir}/b`, 'same answer')
    const aEvents = await runTurns(a.url, ['alpha'])
    const bEvents = await runTurns(b.url, ['bravo', 'charlie'])
    const end = aEvents.findIndex((e) => e.type === 'turn/end')
    expect(bEvents[end]).toEqual(aEvents[end])
    expect(bEvents.slice(0, end)).not.toEqual(aEvents.slice(0, end))

    const frames = await streamAcross(a.url, async () => b.url, (seen) => eventsOf(seen).at(-1)?.seq === bEvents.at(-1)!.seq)
    const reset = frames.findIndex((f) => f.event === 'reset')
    expect(reset).toBeGreaterThan(0)
    expect(frames[reset]).toEqual({ event: 'reset', data: { reason: 'diverged', seq: end } })
    expect(eventsOf(frames.slice(0, reset))).toEqual(aEvents.slice(0, end + 1))
    // After the reset: host B's whole log, from seq 0, and nothing of A's mixed in.
    expect(eventsOf(frames.slice(reset + 1))).toEqual(bEvents)
  })

  it('checks a stream started at the caller\'s own cursor too: its first hello\'s prefix is the baseline', async () => {
    const a = await serve(`${state.dir}/a`, 'same answer')
    const b = await serve(`${state.dir}/b`, 'same answer')
    const aEvents = await runTurns(a.url, ['alpha'])
    const bEvents = await runTurns(b.url, ['bravo', 'charlie'])
    const end = aEvents.findIndex((e) => e.type === 'turn/end')
    const frames = await streamAcross(a.url, async () => b.url, (seen) => eventsOf(seen).at(-1)?.seq === bEvents.at(-1)!.seq, { after: 2 })
    const reset = frames.findIndex((f) => f.event === 'reset')
    expect(frames[reset]).toEqual({ event: 'reset', data: { reason: 'diverged', seq: end } })
    expect(eventsOf(frames.slice(0, reset))).toEqual(aEvents.slice(3, end + 1))
    expect(eventsOf(frames.slice(reset + 1))).toEqual(bEvents)
  })

  it.each([true, false])('resumes without a reset from a host restarted on the same log (chunks: %s)', async (chunks) => {
    // The first connection streams the live log of host "before"; the reconnect reaches the host
    // restarted over the same files, which read the log back from disk and ran a second turn.
    const dir = `${state.dir}/same`
    const before = await serve(dir, 'a longer answer, in chunks of two')
    const events = await runTurns(before.url, ['one'])
    let all: WireEvent[] = []
    const restart = async (): Promise<string> => {
      await before.close()
      const after = await serve(dir, 'a longer answer, in chunks of two')
      const client = createClient({ baseUrl: after.url, token })
      await client.send('c', { content: 'two', clientMessageId: 'm1' }, { waitDurable: true })
      await untilEnded(client, 'm1')
      all = (await client.events('c')).events
      return after.url
    }
    const frames = await streamAcross(before.url, restart, (seen) => all.length > 0 && eventsOf(seen).at(-1)?.seq === all.at(-1)!.seq, { chunks })
    expect(all.length).toBeGreaterThan(events.length)
    expect(frames.some((f) => f.event === 'reset')).toBe(false)
    const expected = chunks ? all : all.filter((e) => e.type !== 'assistant/chunk')
    expect(eventsOf(frames)).toEqual(expected)
  })

  it('resumes without a reset from a restarted host that streams the session cold, from its file', async () => {
    const dir = `${state.dir}/cold`
    const before = await serve(dir, 'an answer')
    const events = await runTurns(before.url, ['one'])
    const restart = async (): Promise<string> => {
      await before.close()
      return (await serve(dir, 'an answer')).url
    }
    const hellos = (frames: StreamFrame[]): StreamFrame[] => frames.filter((f) => f.event === 'hello')
    const frames = await streamAcross(before.url, restart, (seen) => hellos(seen).length === 2)
    expect(frames.some((f) => f.event === 'reset')).toBe(false)
    expect(eventsOf(frames)).toEqual(events)
    // The reconnect's hello carries the fingerprint of the stored log up to the cursor.
    expect(hellos(frames)[1]).toMatchObject({ data: { lastSeq: events.length - 1, prefix: { seq: events.length - 1 } } })
  })

  it('against a host that sends no prefix, checks the last event instead (one request)', async () => {
    // Host B's log has other answers: at the seq where A's turn ended, B holds another event.
    const a = await serve(`${state.dir}/a`, 'short')
    const b = await serve(`${state.dir}/b`, 'a much longer answer than that')
    const aEvents = await runTurns(a.url, ['alpha'])
    const bEvents = await runTurns(b.url, ['bravo'])
    const end = aEvents.findIndex((e) => e.type === 'turn/end')
    expect(bEvents[end]!.type).not.toBe('turn/end')
    const frames = await streamAcross(a.url, async () => b.url, (seen) => eventsOf(seen).at(-1)?.seq === bEvents.at(-1)!.seq, {}, 'older')
    const reset = frames.findIndex((f) => f.event === 'reset')
    expect(frames[reset]).toEqual({ event: 'reset', data: { reason: 'diverged', seq: end } })
    expect(eventsOf(frames.slice(reset + 1))).toEqual(bEvents)
  })

  it('throws when the check itself is refused (401), rather than retrying for ever', async () => {
    const a = await serve(`${state.dir}/a`, 'short')
    await runTurns(a.url, ['alpha'])
    await expect(streamAcross(a.url, async () => a.url, () => false, {}, 'older, refusing the check')).rejects.toMatchObject({ status: 401, code: 'not-authorized' })
  })

  it('a tail stream that dropped before the events between its hello\'s prefix and lastSeq arrived takes the next hello\'s prefix, and later reconnects pass', async () => {
    const a = await serve(`${state.dir}/a`, 'same answer')
    const events = await runTurns(a.url, ['alpha'])
    const end = events.length - 1
    let streams = 0
    let more: WireEvent[] = []
    const routed: typeof fetch = async (input, init) => {
      const url = new URL(String(input))
      if (!url.pathname.endsWith('/stream') || ++streams > 1) {
        // Before the second connection the session runs another turn, which it delivers (and
        // fingerprints) before it drops: the third connection's check compares fingerprints.
        if (streams === 2 && url.pathname.endsWith('/stream')) more = await runTurns(a.url, ['bravo'], 1)
        const response = await fetch(`${a.url}${url.pathname}${url.search}`, init)
        if (streams !== 2 || !url.pathname.endsWith('/stream')) return response
        const reader = response.body!.getReader()
        const decoder = new TextDecoder()
        let text = ''
        return new Response(new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (text.includes(`id: ${more.length - 1}\n`)) {
              await reader.cancel()
              return controller.error(new Error('connection reset'))
            }
            const { done, value } = await reader.read()
            if (done) return controller.close()
            text += decoder.decode(value, { stream: true })
            controller.enqueue(value)
          },
        }), { status: 200, headers: response.headers })
      }
      // The first (tail) connection: the host took its cursor two events before the hello's
      // lastSeq (events logged between the route and the first pull), and it drops after the hello.
      const response = await fetch(`${a.url}${url.pathname}?after=${end - 2}`, init)
      const reader = response.body!.getReader()
      const { value } = await reader.read()
      await reader.cancel()
      const text = new TextDecoder().decode(value)
      const hello = text.slice(0, text.indexOf('\n\n', text.indexOf('event: hello')) + 2).replace(/"lastSeq":\d+/, `"lastSeq":${end}`)
      expect(hello).toContain(`"prefix":{"seq":${end - 2},`)
      return new Response(new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode(hello)), pull: (controller) => controller.error(new Error('connection reset')) }), { status: 200, headers: response.headers })
    }
    const client = createClient({ baseUrl: 'http://bosun.test', token, fetch: routed })
    const controller = new AbortController()
    const frames: StreamFrame[] = []
    for await (const frame of client.stream('c', { fromTail: true, signal: controller.signal, retry: { initialMs: 5, maxMs: 50 } })) {
      frames.push(frame)
      if (frame.event === 'reset' || frames.filter((f) => f.event === 'hello').length === 3) controller.abort()
    }
    expect(streams).toBe(3)
    expect(frames.filter((f) => f.event === 'reset')).toEqual([])
    expect(eventsOf(frames)).toEqual(more.slice(end + 1))
  })
})
