import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it, vi } from 'vitest'
import { createAgent, sealIdleSessions, whenAgentClosed, type Session } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { prefixStats, SLICE_EVENTS } from '../src/log-prefix.js'
import { foldStats } from '../src/stream.js'
import { perTest, req, SseReader, stepGate, waitFor, type Frame } from './helpers.js'
import { checkInboxFrames } from './inbox-frames.js'

// Review of the reconnect after a seal (b3b1a44, a435f95): what the two claims rest on, checked
// where a test can fail — the fingerprint table, keyed on the live Session, goes with the session
// when the host closes it; a stream from the tail, which starts its inbox fold from the agent's
// queues instead of the log, sends the log's queues also when it is built while a turn runs; and a
// stream from an earlier cursor, which folds the log a slice per macrotask, folds what is appended
// between its slices once (after its hello), not also in the fold up to its cursor.

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const state = perTest()

const turnEnds = (frames: Frame[]) => frames.filter((f) => f.event === 'session.event' && f.data.type === 'turn/end').length
const lastSeq = (frames: Frame[]) => Number(frames.filter((f) => f.event === 'session.event').at(-1)!.id)

/** An in-process host over a JSONL store in the test's dir. `made` hears of each agent it builds. */
function host(responses: () => ScriptedResponse[], made: (agent: Awaited<ReturnType<typeof createAgent>>) => void, extra: { idleMs?: number; plugins?: Parameters<typeof createAgent>[0]['plugins'] } = {}): Host {
  // Closed after the host (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir: state.dir })
  state.closing.push(store)
  const built = createHost({
    store,
    agentFactory: async ({ sessionId, store }) => {
      const agent = await createAgent({ model: scripted({ responses: responses() }), store, sessionId, plugins: extra.plugins ?? [] })
      made(agent)
      return agent
    },
    limits: { keepAliveMs: 200, ...(extra.idleMs === undefined ? {} : { idleMs: extra.idleMs }) },
  })
  state.closing.push(built)
  return built
}

/** The hello of a stream at `cursor` (Last-Event-ID); the stream is canceled. */
async function hello(server: Host, cursor: number): Promise<Frame> {
  const stream = new SseReader(await req(server, 'GET', '/v1/sessions/s/stream', undefined, { 'last-event-id': String(cursor) }))
  const [first] = await stream.until((f) => f.length >= 1)
  await stream.cancel()
  expect(first!.event).toBe('hello')
  return first!
}

describe('review: a live stream after a seal', () => {
  it('the fingerprints of a session the host closed for idleness do not keep its Session (nor does anything else)', async () => {
    // Weak references only: the test must not be what holds the session. One per agent the host
    // builds (on a slow machine it may close and reopen the session before the first stream holds it).
    const built: { session: WeakRef<Session>; closed: boolean }[] = []
    const server = host(() => [{ text: 'x'.repeat(1500), chunkSize: 1 }], (agent) => {
      const record = { session: new WeakRef(agent.session), closed: false }
      built.push(record)
      void whenAgentClosed(agent).then(() => (record.closed = true))
    }, { idleMs: 50 })
    await req(server, 'POST', '/v1/sessions', { id: 's' })
    const watch = new SseReader(await req(server, 'GET', '/v1/sessions/s/stream'))
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await watch.until((f) => turnEnds(f) === 1)
    const cursor = lastSeq(watch.frames)

    // A reconnect at the end makes the session's table (two slices' worth); after a seal, the
    // same table answers at the end and at an earlier cursor. (`watch`, still open, keeps the
    // host from closing the idle session in between.)
    const hashed = prefixStats.hashed
    const before = (await hello(server, cursor)).data.prefix
    expect(prefixStats.hashed - hashed).toBe(cursor + 1)
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    expect((await hello(server, cursor)).data.prefix).toEqual(before)
    await hello(server, 3)
    expect(prefixStats.hashed - hashed).toBe(cursor + 1)
    const open = built.at(-1)!
    expect(open.closed).toBe(false)

    // No stream, no request: the host closes the session; nothing it kept for it holds it then.
    await watch.cancel()
    await waitFor(() => open.closed, 15_000, 'the host to close the idle session')
    // Booleans only, gc() first in each check (a deref keeps its target alive to the end of the job).
    await vi.waitFor(() => {
      gc()
      expect(built.every((record) => record.session.deref() === undefined)).toBe(true)
    }, { timeout: 10_000, interval: 20 })
  })

  it('a stream from the tail built while a turn runs (a claim made, an inject queued, a step held) sends the log\'s queues', async () => {
    const gate = stepGate()
    const server = host(() => [{ text: 'answer' }, { text: 'second' }], () => {}, { plugins: [gate.plugin] })
    await req(server, 'POST', '/v1/sessions', { id: 's' })
    // Queued before the turn claims it, and one more that stays in next-turn while it runs.
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'i1', content: 'context', delivery: 'inject' })
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'two' })
    await waitFor(() => gate.waiting === 1, 15_000, 'the first step to be held at pre-step')

    // The only stream of the session: it folds (and serialises) every frame after its cursor itself.
    const tail = new SseReader(await req(server, 'GET', '/v1/sessions/s/stream?from=tail'))
    const [first] = await tail.until((f) => f.length >= 1)
    expect(first!.data.status).toBe('running')
    // The held step's queues: m2 waits for its own turn; a steer arrives for the next step.
    expect(first!.data.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['m2'])
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 's1', content: 'steer', delivery: 'steer' })
    gate.open()
    const frames = await tail.until((f) => turnEnds(f) === 2)
    await tail.cancel()

    const { events } = (await (await req(server, 'GET', '/v1/sessions/s/events?limit=1000')).json()) as { events: { seq: number }[] }
    // Each inbox frame carries the queues the log's splices leave at the event before it: the
    // steer's insertion and claim, m2's claim at least.
    expect(checkInboxFrames(frames, events)).toBeGreaterThanOrEqual(3)
  })

  it('a stream from an earlier cursor, on a sealed log, folds once what is appended between its slices, after its hello', async () => {
    let agent: Awaited<ReturnType<typeof createAgent>> | undefined
    const server = host(() => [{ text: 'x'.repeat(3 * SLICE_EVENTS), chunkSize: 1 }], (made) => (agent = made))
    await req(server, 'POST', '/v1/sessions', { id: 's' })
    const watch = new SseReader(await req(server, 'GET', '/v1/sessions/s/stream'))
    await req(server, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'one' })
    await watch.until((f) => turnEnds(f) === 1)
    const end = lastSeq(watch.frames)
    expect(await sealIdleSessions()).toBeGreaterThan(0)

    // The stream's first pull folds seqs 0 … 2,500 in three slices. An inject lands after each
    // macrotask until the hello is read: they fall between the slices, past the cursor.
    const cursor = 2 * SLICE_EVENTS + 500
    const { yields } = foldStats
    const stream = new SseReader(await req(server, 'GET', '/v1/sessions/s/stream', undefined, { 'last-event-id': String(cursor) }))
    let helloRead = false
    let injected = 0
    /** The fold's yields so far at each inject. */
    const at: number[] = []
    const injectEachTurnOfTheLoop = (): void => {
      if (helloRead) return
      at.push(foldStats.yields - yields)
      agent!.inject(`between slices ${injected++}`)
      setImmediate(injectEachTurnOfTheLoop)
    }
    setImmediate(injectEachTurnOfTheLoop)
    const [hello] = await stream.until((f) => f.length >= 1)
    helloRead = true
    expect(hello!.event).toBe('hello')
    expect(foldStats.yields - yields).toBe(2)
    // Injects were appended once the fold had yielded (before the hello was built).
    expect(at.some((yielded) => yielded >= 1)).toBe(true)
    expect(hello!.data.lastSeq).toBeGreaterThan(end)
    const last = agent!.session.length - 1
    const frames = await stream.until((f) => f.some((frame) => frame.event === 'session.event' && Number(frame.id) === last))
    await stream.cancel()
    await watch.cancel()

    // Hello first, then every seq after the cursor exactly once, in order.
    expect(frames[0]!.event).toBe('hello')
    const seqs = frames.filter((f) => f.event === 'session.event').map((f) => Number(f.id))
    expect(seqs).toEqual(Array.from({ length: last - cursor }, (_, i) => cursor + 1 + i))
    // Each inbox frame is the log's queues at the event before it: an inject folded twice (in
    // the fold up to the cursor and again from the log) would be in next-step twice.
    expect(checkInboxFrames(frames, agent!.session.events)).toBe(injected)
    expect(frames.filter((f) => f.event === 'session.inbox').at(-1)!.data['next-step']).toHaveLength(injected)
  })
})
