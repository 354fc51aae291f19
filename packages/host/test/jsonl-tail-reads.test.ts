// A host on the JSONL store (the default) answers a page of `GET …/events` and `GET /v1/sessions/:id`
// of a session it has not loaded from the log's end (Store.summary, Store.readEvents), not from a
// whole read of the log — the same answers as a host whose store reads whole logs. Before the JSONL
// store had the two, each request read the session's whole file.
import { describe, expect, it } from 'vitest'
import { createAgent, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { json, perTest, req, stepGate, waitFor } from './helpers.js'
import { countReads } from './store-reads.js'

/** 13 answers of 300 one-character chunks: a turn logs about 310 events. */
const LONG = () => Array.from({ length: 13 }, (_, i) => ({ text: `${String.fromCharCode(97 + i)}`.repeat(300), chunkSize: 1 }))

describe('host on the JSONL store — a session not loaded is read from its log\'s end', () => {
  const state = perTest()
  const PAGE = 200

  /** A host over the folder; `whole`: its store without summary(id), so it reads whole logs (the path before). */
  function hostOn(options: { whole?: boolean; plugins?: () => Parameters<typeof createAgent>[0]['plugins'] } = {}): { host: Host; store: Store } {
    const store = jsonlStore({ dir: state.dir })
    if (options.whole) (store as { summary?: unknown }).summary = undefined
    const host = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: LONG() }), store, sessionId, plugins: options.plugins?.() ?? [] }),
      limits: { keepAliveMs: 200, pageSize: PAGE },
    })
    state.closing.push(store, host)
    return { host, store }
  }

  /** A session of ~3,700 events, run by host `a`: 12 messages posted at once, most waiting in the next-turn queue while the turns before them run. */
  async function longSession(a: Host, id: string): Promise<number> {
    expect((await req(a, 'POST', '/v1/sessions', { id })).status).toBe(201)
    for (let i = 0; i < 12; i++) expect((await req(a, 'POST', `/v1/sessions/${id}/messages`, { clientMessageId: `q-${i}`, content: `question ${i}` })).status).toBe(202)
    const live = (await a.sessions.peek(id))!
    await waitFor(() => live.agent.session.events.filter((e) => e.type === 'turn/end').length === 12 && live.agent.status === 'idle', 120_000, 'the 12 turns to end')
    await live.agent.session.flush()
    return live.agent.session.length
  }

  it('GET …/events reads only the page: the same pages as from a whole read', { timeout: 180_000 }, async () => {
    const a = hostOn()
    const length = await longSession(a.host, 'page-1')
    expect(length).toBeGreaterThan(3000)
    await a.host.sessions.drop('page-1')
    const b = hostOn()
    const c = hostOn({ whole: true })
    const counted = countReads(b.store)
    for (const query of ['after=2000&limit=100', '', `after=${length - 3}&limit=50`, `after=${length - 1}`, `after=-1&limit=${PAGE}`, 'after=1234&limit=1']) {
      const before = counted.events
      const page = await json(req(b.host, 'GET', `/v1/sessions/page-1/events?${query}`))
      expect(page).toEqual(await json(req(c.host, 'GET', `/v1/sessions/page-1/events?${query}`)))
      expect(counted.events - before).toBe(page.events.length)
    }
    expect(counted.reads).toBe(0)
    // A cursor past the end and an unknown session are answered as before.
    expect((await json(req(b.host, 'GET', `/v1/sessions/page-1/events?after=${length}`))).error.code).toBe('replay-unavailable')
    expect((await req(b.host, 'GET', '/v1/sessions/nobody/events')).status).toBe(404)
    expect(counted.reads).toBe(0)
  })

  it('GET /v1/sessions/:id reads back from the end (a session another host in the folder runs, messages queued behind a held turn): the same answer and ETag as from a whole read', { timeout: 180_000 }, async () => {
    const gate = stepGate()
    let gated = false
    const a = hostOn({ plugins: () => (gated ? [gate.plugin] : []) })
    const length = await longSession(a.host, 'state-1')
    const b = hostOn()
    const c = hostOn({ whole: true })
    const counted = countReads(b.store)
    const compare = async () => {
      const [tail, whole] = [await req(b.host, 'GET', '/v1/sessions/state-1'), await req(c.host, 'GET', '/v1/sessions/state-1')]
      expect(tail.headers.get('etag')).toBe(whole.headers.get('etag'))
      const body = (await tail.json()) as { inbox: Record<'next-turn' | 'next-step', { id: string }[]> }
      expect(body).toEqual(await whole.json())
      return body
    }
    expect(await compare()).toMatchObject({ loaded: false, lastSeq: length - 1, inbox: { 'next-turn': [], 'next-step': [] } })
    // Host A runs the session again, its next turn held at its first step: the messages after it wait.
    await a.host.sessions.drop('state-1')
    gated = true
    for (const m of ['w-1', 'w-2', 'w-3']) await req(a.host, 'POST', '/v1/sessions/state-1/messages?wait=durable', { clientMessageId: m, content: m })
    await waitFor(() => gate.waiting === 1, 60_000, 'the turn to be held on A')
    await waitFor(async () => (await b.store.list()).find((item) => item.id === 'state-1')?.pending === 2, 60_000, 'the claim of w-1 written')
    const held = await compare()
    expect(held.inbox['next-turn'].map((m) => m.id)).toEqual(['w-2', 'w-3'])
    expect(counted.reads).toBe(0)
    expect(counted.ranges).toBeGreaterThan(0)
    // Back to the last splice before the end (the last turn's claim, ~310 events back): two pages of the 3,700.
    expect(counted.lowest).toBeGreaterThanOrEqual(length - 2 * PAGE)
    gate.open()
  })
})
