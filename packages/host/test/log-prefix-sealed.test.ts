import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent, sealIdleSessions, whenAgentClosed, type Agent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { fingerprinted, LogHash } from '../src/client-log-hash.js'
import { createHost, listen, type HostLimits, type RunningServer } from '../src/index.js'
import { SLICE_EVENTS, prefixStats } from '../src/log-prefix.js'
import { foldStats } from '../src/stream.js'
import { perTest, SseReader, type Frame } from './helpers.js'
import { checkInboxFrames } from './inbox-frames.js'

// The hello's `prefix` of a live session across the core's idle seal (sealed log pages): the seal
// makes `session.events` another object, and the fingerprints must outlive that — a reconnect
// after a seal hashes only the events it has not hashed — but not the session: one closed and
// opened again is a new `Session`, whose log may differ.

const state = perTest()

/** A host on 127.0.0.1 over a JSONL store in the test's dir; the agents it builds are kept in `agents`. */
async function serve(responses: () => ScriptedResponse[], limits: HostLimits = {}): Promise<{ server: RunningServer; agents: Agent[] }> {
  const agents: Agent[] = []
  // Closed after the server (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir: state.dir })
  state.closing.push(store)
  const host = createHost({
    store,
    agentFactory: async ({ sessionId, store }) => {
      const agent = await createAgent({ model: scripted({ responses: responses() }), store, sessionId })
      agents.push(agent)
      return agent
    },
    limits: { keepAliveMs: 200, ...limits },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  state.closing.push(server)
  return { server, agents }
}

const post = (server: RunningServer, path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

const turnEnds = (frames: Frame[]) => frames.filter((f) => f.event === 'session.event' && f.data.type === 'turn/end').length

const lastSeq = (frames: Frame[]) => Number(frames.filter((f) => f.event === 'session.event').at(-1)!.id)

/** The fingerprint a client computes from the event frames it received, up to `seq`. */
function clientHash(frames: Frame[], seq: number): string {
  const hash = new LogHash()
  for (const frame of frames) {
    if (frame.event !== 'session.event' || Number(frame.id) > seq) continue
    if (fingerprinted(frame.data.type)) hash.add(JSON.stringify(frame.data))
  }
  return hash.hex
}

interface Reconnect {
  prefix: { seq: number; hash: string }
  /** Events the host hashed for the hello, and the times it yielded doing so. */
  hashed: number
  yields: number
  /** Events the host folded (the inbox at the cursor), and the times it yielded doing so. */
  folded: number
  foldYields: number
}

/** A reconnect at `cursor` (Last-Event-ID): its hello, and what the host read of the log for it. */
async function reconnect(server: RunningServer, cursor: number): Promise<Reconnect> {
  const before = { ...prefixStats, folded: foldStats.folded, foldYields: foldStats.yields }
  const stream = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`, { headers: { 'last-event-id': String(cursor) } }))
  const [hello] = await stream.until((f) => f.length >= 1)
  await stream.cancel()
  expect(hello!.event).toBe('hello')
  return {
    prefix: hello!.data.prefix,
    hashed: prefixStats.hashed - before.hashed,
    yields: prefixStats.yields - before.yields,
    folded: foldStats.folded - before.folded,
    foldYields: foldStats.yields - before.foldYields,
  }
}

describe('host: the hello\'s prefix across a sealed log', () => {
  it('a reconnect after a seal gets the same prefix, and hashes only the events it had not hashed', async () => {
    // One long answer in one-character chunks: a log of a few slices, sealed into many pages.
    const answer = 'x'.repeat(3 * SLICE_EVENTS)
    const { server } = await serve(() => [{ text: answer, chunkSize: 1 }, { text: 'second' }])
    await post(server, '/v1/sessions', { id: 's' })
    // A stream from seq 0 (which hashes nothing: its prefix is the empty log's) shows the log.
    const watch = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await watch.until((f) => turnEnds(f) === 1)
    const cursor = lastSeq(watch.frames)
    expect(cursor).toBeGreaterThan(3 * SLICE_EVENTS)

    const first = await reconnect(server, cursor)
    expect(first.prefix).toEqual({ seq: cursor, hash: clientHash(watch.frames, cursor) })
    expect(first.hashed).toBe(cursor + 1)
    expect(first.yields).toBeGreaterThanOrEqual(3)

    expect(await sealIdleSessions()).toBeGreaterThan(0)
    // At the tail the inbox is the agent's: nothing of the sealed log is read for the hello.
    const sealed = await reconnect(server, cursor)
    expect(sealed).toEqual({ prefix: first.prefix, hashed: 0, yields: 0, folded: 0, foldYields: 0 })
    // An earlier cursor is answered from the same chain too; its inbox is folded, a slice per macrotask.
    expect(await reconnect(server, 10)).toEqual({ prefix: { seq: 10, hash: clientHash(watch.frames, 10) }, hashed: 0, yields: 0, folded: 11, foldYields: 0 })
    const mid = 2 * SLICE_EVENTS + 500
    expect(await reconnect(server, mid)).toEqual({ prefix: { seq: mid, hash: clientHash(watch.frames, mid) }, hashed: 0, yields: 0, folded: mid + 1, foldYields: 2 })

    // The log grows after the seal and is sealed again: a reconnect at its new end hashes the new events only.
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
    await watch.until((f) => turnEnds(f) === 2)
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    const end = lastSeq(watch.frames)
    const grown = await reconnect(server, end)
    expect(grown.prefix).toEqual({ seq: end, hash: clientHash(watch.frames, end) })
    expect(grown.hashed).toBe(end - cursor)
    expect((await reconnect(server, cursor)).prefix).toEqual(first.prefix)
    await watch.cancel()
  })

  it('a stream from the tail after a seal folds nothing, and its inbox frames are the log\'s queues', async () => {
    const { server } = await serve(() => [{ text: 'first' }, { text: 'second' }])
    await post(server, '/v1/sessions', { id: 's' })
    const watch = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await watch.until((f) => turnEnds(f) === 1)
    // An inject waits in next-step without waking the agent: the queues at the tail are not empty.
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'i1', content: 'context', delivery: 'inject' })
    await watch.until((f) => f.some((frame) => frame.event === 'session.inbox' && frame.data['next-step'].length === 1))
    const cursor = lastSeq(watch.frames)
    // The tail stream must serialise the next frames itself (a session's frames are cached for
    // all its subscribers, and another stream would have folded them first).
    await watch.cancel()
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    const { folded } = foldStats
    const tail = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream?from=tail`))
    const [hello] = await tail.until((f) => f.length >= 1)
    expect(hello!.data.lastSeq).toBe(cursor)
    expect(foldStats.folded).toBe(folded)
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
    const frames = await tail.until((f) => turnEnds(f) === 1)
    const { events } = await (await fetch(`${server.url}/v1/sessions/s/events?limit=1000`)).json() as { events: { seq: number }[] }
    // Each inbox frame carries the queues the log's splices leave at the event before it.
    expect(checkInboxFrames(frames, events)).toBeGreaterThanOrEqual(2)
    expect(frames.find((f) => f.event === 'session.inbox')!.data['next-step']).toHaveLength(1)
    await tail.cancel()
  })

  it('a session closed and opened again (a new Session) gets a chain of its own, not the old log\'s', async () => {
    // Both agents answer the same, so the reopened log's second turn has the old one's seqs.
    const { server, agents } = await serve(() => [{ text: 'same' }, { text: 'same' }], { idleMs: 50 })
    await post(server, '/v1/sessions', { id: 's' })
    const watch = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await watch.until((f) => turnEnds(f) === 1)
    const firstEnd = lastSeq(watch.frames)
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
    await watch.until((f) => turnEnds(f) === 2)
    const cursor = lastSeq(watch.frames)
    const old = await reconnect(server, cursor)
    expect(old.hashed).toBe(cursor + 1)
    await watch.cancel()

    // Idle with no stream: the host closes the session. Its second turn is then lost, as an
    // unsynced tail is in a crash, and the session is opened again with another second turn.
    // (The one open now: on a slow machine the host may have closed and reopened it before the stream held it.)
    const closed = agents.at(-1)!
    await whenAgentClosed(closed)
    const file = join(state.dir, 's.jsonl')
    const lines = (await readFile(file, 'utf8')).split('\n')
    await writeFile(file, lines.slice(0, firstEnd + 2).join('\n') + '\n')
    const tail = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream?from=tail`))
    await tail.until((f) => f.length >= 1)
    await post(server, '/v1/sessions/s/messages', { clientMessageId: 'm3', content: 'TWO' })
    await tail.until((f) => turnEnds(f) === 1)
    const reopenedAgent = agents.at(-1)!
    expect(reopenedAgent.session).not.toBe(closed.session)
    expect(reopenedAgent.session.length - 1).toBe(cursor)

    const replay = new SseReader(await fetch(`${server.url}/v1/sessions/s/stream`))
    const frames = await replay.until((f) => f.some((frame) => frame.event === 'session.event' && Number(frame.id) === cursor))
    await replay.cancel()
    const reopened = await reconnect(server, cursor)
    expect(reopened.prefix).toEqual({ seq: cursor, hash: clientHash(frames, cursor) })
    expect(reopened.prefix.hash).not.toBe(old.prefix.hash)
    expect(reopened.hashed).toBe(cursor + 1)
    await tail.cancel()
  })
})
