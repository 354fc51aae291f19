import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { foldInbox } from '../src/log.js'
import { LogTail, tailStore } from '../src/log-tail.js'
import { json, req, stepGate, waitFor } from './helpers.js'
import { available, useCluster, type ClusterHost } from './cluster-helpers.js'
import { countReads } from './store-reads.js'

/** A host whose store cannot say where a log ends (no `summary`): its routes read whole logs, as before. */
function withoutSummary(h: ClusterHost): void {
  ;(h.store as { summary?: unknown }).summary = undefined
}

type Chunk = { type: string; delta?: string; data?: unknown }

async function uiChunks(response: Response): Promise<Chunk[]> {
  expect(response.status).toBe(200)
  const text = await response.text()
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  return text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as Chunk)
}

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })

/** 13 answers of 420 one-character chunks: a turn logs about 430 events. */
const LONG = () => Array.from({ length: 13 }, (_, i) => ({ text: `${String.fromCharCode(97 + i)}`.repeat(420), chunkSize: 1 }))

/**
 * A session of ~5,000 events run by host A: 12 messages posted at once, so that most wait in the
 * next-turn queue while the turns before them run (the inbox fold is not empty along the log).
 */
async function longSession(a: ClusterHost, id: string): Promise<number> {
  expect((await req(a.host, 'POST', '/v1/sessions', { id })).status).toBe(201)
  for (let i = 0; i < 12; i++) expect((await req(a.host, 'POST', `/v1/sessions/${id}/messages`, { clientMessageId: `q-${i}`, content: `question ${i}` })).status).toBe(202)
  const live = (await a.host.sessions.peek(id))!
  await waitFor(() => live.agent.session.events.filter((e) => e.type === 'turn/end').length === 12 && live.agent.status === 'idle', 120_000, 'the 12 turns to end')
  await live.agent.session.flush()
  return live.agent.session.length
}

describe.skipIf(!available)('host cluster on PostgreSQL — routes read the end of a long log, not all of it', () => {
  const cluster = useCluster()

  it('GET …/events reads one page of a 5,000-event log: the same page as from a whole read', { timeout: 240_000 }, async () => {
    const [a, b, c] = cluster.hosts(3, { responses: LONG })
    const length = await longSession(a!, 'page-1')
    expect(length).toBeGreaterThan(5000)
    withoutSummary(c!)
    const counted = countReads(b!.store)
    for (const query of ['after=2000&limit=100', '', `after=${length - 3}&limit=50`, `after=${length - 1}`, 'after=-1&limit=1000']) {
      const before = counted.events
      const page = await json(req(b!.host, 'GET', `/v1/sessions/page-1/events?${query}`))
      expect(page).toEqual(await json(req(c!.host, 'GET', `/v1/sessions/page-1/events?${query}`)))
      expect(counted.events - before).toBe(page.events.length)
    }
    expect(counted.reads).toBe(0)
    // A cursor past the end and an unknown session are answered as before.
    expect((await json(req(b!.host, 'GET', `/v1/sessions/page-1/events?after=${length}`))).error.code).toBe('replay-unavailable')
    expect((await req(b!.host, 'GET', '/v1/sessions/nobody/events')).status).toBe(404)
    expect(counted.reads).toBe(0)
  })

  it('GET /v1/sessions/:id of a session not loaded reads the log\'s end: the same answer and ETag as from a whole read', { timeout: 240_000 }, async () => {
    const gate = stepGate()
    let gated = false
    const [a, b, c] = cluster.hosts(3, { responses: LONG, plugins: () => (gated ? [gate.plugin] : []) })
    const length = await longSession(a!, 'state-1')
    withoutSummary(c!)
    const counted = countReads(b!.store)
    const compare = async () => {
      const [tail, whole] = [await req(b!.host, 'GET', '/v1/sessions/state-1'), await req(c!.host, 'GET', '/v1/sessions/state-1')]
      expect(tail.headers.get('etag')).toBe(whole.headers.get('etag'))
      const body = (await tail.json()) as { inbox: Record<'next-turn' | 'next-step', { id: string }[]> }
      expect(body).toEqual(await whole.json())
      return body
    }
    expect(await compare()).toMatchObject({ loaded: false, lastSeq: length - 1, inbox: { 'next-turn': [], 'next-step': [] } })
    // Messages waiting behind a held turn: the queues the answer carries are folded from the tail.
    await a!.host.sessions.drop('state-1')
    gated = true
    for (const m of ['w-1', 'w-2', 'w-3']) await req(a!.host, 'POST', '/v1/sessions/state-1/messages?wait=durable', { clientMessageId: m, content: m })
    await waitFor(() => gate.waiting === 1, 60_000, 'the turn to be held on A')
    await waitFor(async () => (await b!.store.summary('state-1'))?.pending === 2, 60_000, 'the claim of w-1 committed')
    const held = await compare()
    expect(held.inbox['next-turn'].map((m) => m.id)).toEqual(['w-2', 'w-3'])
    expect(counted.reads).toBe(0)
    expect(counted.lowest).toBeGreaterThanOrEqual(length - 1000)
    gate.open()
  })

  it('the AI SDK chat POST on a non-owner reads the log\'s tail, not its 5,000 events: the same parts as from a whole read', { timeout: 240_000 }, async () => {
    const [a, b, c] = cluster.hosts(3, { responses: LONG })
    const length = await longSession(a!, 'chat-long')
    withoutSummary(c!)
    const counted = countReads(b!.store)
    const first = await uiChunks(await req(b!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-long', 'u-1', 'one more')))
    expect(first[0]).toEqual({ type: 'start', messageId: 'bosun-turn-13' })
    expect(counted.reads).toBe(0)
    // Only events after the log's end as it was: the new turn's.
    expect(counted.lowest).toBeGreaterThanOrEqual(length)

    // The same message again, from its admission: replayed by the tail (back to the admission) and by a whole read.
    counted.lowest = Infinity
    const again = await uiChunks(await req(b!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-long', 'u-1', 'one more')))
    const whole = await uiChunks(await req(c!.host, 'POST', '/v1/ai-sdk/chat', chat('chat-long', 'u-1', 'one more')))
    expect(again).toEqual(first)
    expect(whole).toEqual(first)
    expect(counted.reads).toBe(0)
    expect(counted.lowest).toBeGreaterThanOrEqual(length - 1000)
  })

  it('a chat POST whose cursor sits among queued messages folds the queues from the last point they were empty: the parts of a whole read', { timeout: 240_000 }, async () => {
    const [a, b, c] = cluster.hosts(3, { responses: LONG })
    await longSession(a!, 'queued-1')
    withoutSummary(c!)
    const counted = countReads(b!.store)
    // q-5 was admitted while turns before it ran: the queue snapshots of its turn list what waited behind it.
    const replayed = await uiChunks(await req(b!.host, 'POST', '/v1/ai-sdk/chat', chat('queued-1', 'q-5', 'question 5')))
    const whole = await uiChunks(await req(c!.host, 'POST', '/v1/ai-sdk/chat', chat('queued-1', 'q-5', 'question 5')))
    expect(replayed).toEqual(whole)
    expect(replayed.filter((p) => p.type === 'data-bosun-queue').some((p) => (p.data as Record<string, unknown[]>)['next-turn']!.length > 0)).toBe(true)
    expect(counted.reads).toBe(0)
  })

  it('the AI SDK resume route on a non-owner finds the open turn from the log\'s end: the same parts as from a whole read', { timeout: 240_000 }, async () => {
    const gate = stepGate()
    let gated = false
    const [a, b, c] = cluster.hosts(3, { responses: LONG, plugins: () => (gated ? [gate.plugin] : []) })
    const length = await longSession(a!, 'resume-1')
    // Host A opens the session again, with a gate: the next turn waits at its first step.
    await a!.host.sessions.drop('resume-1')
    gated = true
    await req(a!.host, 'POST', '/v1/sessions/resume-1/messages?wait=durable', { clientMessageId: 'r-1', content: 'held' })
    await waitFor(() => gate.waiting === 1, 60_000, 'the turn to be held on A')
    await waitFor(async () => (await b!.store.sessionStatus('resume-1')) === 'running', 60_000, 'the turn/start committed')
    withoutSummary(c!)
    const counted = countReads(b!.store)
    const countedWhole = countReads(c!.store)
    const resumed = req(b!.host, 'GET', '/v1/ai-sdk/chat/resume-1/stream')
    const whole = req(c!.host, 'GET', '/v1/ai-sdk/chat/resume-1/stream')
    await waitFor(() => counted.ranges > 0 && countedWhole.reads > 0, 60_000, 'hosts B and C to read the log')
    gate.open()
    const chunks = await uiChunks(await resumed)
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-13' })
    expect(chunks).toEqual(await uiChunks(await whole))
    expect(counted.reads).toBe(0)
    expect(counted.lowest).toBeGreaterThanOrEqual(length - 1000)
  })
  it('LogTail gives the inbox at any seq as folding the whole log does (logs with damaged splices too), and nothing from a summary its log contradicts', { timeout: 240_000 }, async () => {
    const hosts = cluster.hosts(1)
    const h = hosts[0]
    const store = tailStore(h!.store)!
    let state = 7
    const random = (n: number): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return Math.floor((state / 2 ** 31) * n)
    }
    let given = 0
    let checked = 0
    for (let log = 0; log < 24; log++) {
      // Splices of both queues (claims of a whole queue, removals anywhere, inserts), turns between;
      // every third log has damaged splices in its first half too (removing more than is queued,
      // starting past the end), which the fold clamps as a whole fold does.
      const lengths = { 'next-turn': 0, 'next-step': 0 }
      const events: SessionEvent[] = []
      const push = (type: string, data: unknown) => events.push({ seq: events.length, time: 1_000 + events.length, type, data } as SessionEvent)
      for (let i = 0; i < 80; i++) {
        const target = random(3) === 0 ? 'next-step' : 'next-turn'
        const queued = lengths[target]
        const damaged = log % 3 === 2 && i < 40 && random(8) === 0
        if (random(4) === 0) push('turn/start', { turn: i })
        else if (damaged) push('agent/inbox/spliced', { target, start: queued + random(3), removedCount: 1 + random(3), inserted: [] })
        else if (queued > 0 && random(5) === 0) {
          // A claim of the whole queue: the inbox is often empty again, as it is between turns.
          push('agent/inbox/spliced', { target, start: 0, removedCount: queued, inserted: [] })
          lengths[target] = 0
        } else if (queued > 0 && random(2) === 0) {
          const start = random(queued)
          const removedCount = 1 + random(queued - start)
          push('agent/inbox/spliced', { target, start, removedCount, inserted: [], ...(random(2) === 0 ? { outcome: 'canceled' } : {}) })
          lengths[target] -= removedCount
        } else {
          const inserted = Array.from({ length: 1 + random(2) }, (_, k) => ({ id: `m-${log}-${i}-${k}`, role: 'user', content: `message ${i}` }))
          push('agent/inbox/spliced', { target, start: random(queued + 1), inserted })
          lengths[target] += inserted.length
        }
      }
      const id = `tail-${log}`
      const created = await h!.store.create({ id, createdAt: 1_000, version: 1 } as never, events)
      await created.writer.close()
      const tail = (await LogTail.open(store, id, 1 + random(9)))!
      expect(tail.length).toBe(events.length)
      for (let upTo = -1; upTo < events.length; upTo++) {
        const fold = await tail.inboxAt(upTo)
        checked++
        if (fold === undefined) continue
        given++
        expect(fold.snapshot()).toEqual(foldInbox(events.slice(0, upTo + 1)))
      }
    }
    expect(given).toBe(checked)

    // A summary its log contradicts (a queue one short: taken back, it goes below zero): no answer rather than a wrong one.
    const [row] = (await cluster.sql(`SELECT id, summary FROM "${hosts.schema}".sessions WHERE summary::jsonb #>> '{queued,next-step}' <> '0' ORDER BY id LIMIT 1`)) as { id: string; summary: string }[]
    const wrong = JSON.parse(row!.summary) as { pending: number; queued: Record<string, number> }
    wrong.pending--
    wrong.queued['next-step']!--
    await cluster.sql(`UPDATE "${hosts.schema}".sessions SET summary = $1 WHERE id = $2`, [JSON.stringify(wrong), row!.id])
    const off = (await LogTail.open(store, row!.id, 5))!
    expect(off.queued).toBeDefined()
    // (Through seq -1 nothing is folded: that needs no summary.)
    expect((await off.inboxAt(-1))?.snapshot()).toEqual({ 'next-turn': [], 'next-step': [] })
    for (let upTo = 0; upTo < off.length; upTo++) expect(await off.inboxAt(upTo)).toBeUndefined()
  })
})
