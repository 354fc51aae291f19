import { describe, expect, it } from 'vitest'
import { createAgent, createUserMessage, type Agent, type SessionEvent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen, messageState, type Host, type RunningServer } from '../src/index.js'
import { perTest, stepGate, waitFor } from './helpers.js'

const t = perTest()

async function serve(plugins: ReturnType<typeof stepGate>['plugin'][]): Promise<{ host: Host; server: RunningServer; store: ReturnType<typeof jsonlStore> }> {
  const store = jsonlStore({ dir: t.dir })
  // Closed after the server (the list closes in reverse): a store left open keeps its journal file open.
  t.closing.push(store)
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId, plugins }), limits: { keepAliveMs: 200 } })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(server)
  return { host, server, store }
}

const call = (server: RunningServer, method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })

/**
 * Counts how the session's log is read: whole (`session.events`, what folding it takes) and
 * event by event (`eventAt`, what the index's first build and its catch-up read). The agent reads
 * its log too as a turn runs: {@link statusAndFold} keeps what was read during its requests, the
 * counts a test checks (each made while the session is idle or held at its step).
 */
function countReads(agent: Agent): { whole: number; single: number; route: { whole: number; single: number } } {
  const counts = { whole: 0, single: 0, route: { whole: 0, single: 0 } }
  const { session } = agent
  const events = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(session) as object, 'events')!.get!
  const eventAt = session.eventAt
  Object.defineProperty(session, 'events', { configurable: true, get: () => (counts.whole++, events.call(session) as readonly SessionEvent[]) })
  session.eventAt = (seq: number) => (counts.single++, eventAt.call(session, seq))
  return counts
}

/** The route's answer, byte for byte, and the fold of the whole log at the same point (read by the test after it, not counted). */
async function statusAndFold(server: RunningServer, agent: Agent, reads: ReturnType<typeof countReads>, id: string): Promise<{ body: string; folded: string }> {
  const [whole, single] = [reads.whole, reads.single]
  const response = await call(server, 'GET', `/v1/sessions/s/messages/${id}`)
  const body = await response.text()
  reads.route.whole += reads.whole - whole
  reads.route.single += reads.single - single
  const state = messageState(agent.session.events, id, agent.session.header.seedLength ?? 0)
  const folded = state === undefined ? `${response.status}` : JSON.stringify(state)
  return { body: response.status === 200 ? body : `${response.status}`, folded }
}

describe('GET /v1/sessions/:id/messages/:messageId on a live session', () => {
  it('answers from the index the session keeps: one pass on the first request, then events as they are appended, never the whole log', async () => {
    const gate = stepGate()
    const { host, server } = await serve([gate.plugin])
    expect((await call(server, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    expect((await call(server, 'POST', '/v1/sessions/s/messages', { content: 'first', clientMessageId: 'm1' })).status).toBe(202)
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 held before its step')
    for (const id of ['m2', 'm3', 'm4']) expect((await call(server, 'POST', '/v1/sessions/s/messages', { content: id, clientMessageId: id })).status).toBe(202)
    const { agent } = await host.sessions.use('s')
    const reads = countReads(agent)

    // The first request builds the index: one pass over the log so far, event by event.
    const length = agent.session.length
    const first = await statusAndFold(server, agent, reads, 'm3')
    expect(first.body).toBe(first.folded)
    expect(JSON.parse(first.body)).toMatchObject({ state: 'queued', lane: 'next-turn', position: 1 })
    expect(reads.route).toEqual({ whole: 0, single: length })

    // Changes after it — a promote, a removal, an edit — reach it through the session's subscription.
    expect((await call(server, 'POST', '/v1/sessions/s/inbox/m3/promote', {})).status).toBe(200)
    expect((await call(server, 'DELETE', '/v1/sessions/s/inbox/m2')).status).toBe(200)
    expect((await call(server, 'PATCH', '/v1/sessions/s/inbox/m4', { content: 'edited' })).status).toBe(200)
    reads.route.single = 0
    for (const id of ['m1', 'm2', 'm3', 'm4', 'nope']) {
      const { body, folded } = await statusAndFold(server, agent, reads, id)
      expect(body, id).toBe(folded)
    }
    expect(JSON.parse((await statusAndFold(server, agent, reads, 'm3')).body)).toMatchObject({ state: 'queued', lane: 'next-step', position: 0 })
    expect(JSON.parse((await statusAndFold(server, agent, reads, 'm2')).body)).toMatchObject({ state: 'canceled' })

    // The turn runs on: m1 and the promoted m3 are delivered, m4 waits for the next turn.
    gate.open()
    await waitFor(async () => (await (await call(server, 'GET', '/v1/sessions/s/messages/m4')).json() as { turnEnd?: string }).turnEnd === 'completed' && agent.status === 'idle', 15_000, 'm4 delivered and the session idle')
    for (const id of ['m1', 'm2', 'm3', 'm4']) {
      const { body, folded } = await statusAndFold(server, agent, reads, id)
      expect(body, id).toBe(folded)
    }
    expect(JSON.parse((await statusAndFold(server, agent, reads, 'm3')).body)).toMatchObject({ state: 'claimed', turn: 1, stepped: true, turnEnd: 'completed', lane: 'next-turn' })
    expect(reads.route).toEqual({ whole: 0, single: 0 })
  })

  it('answers a session a crash left mid-turn as its log says, from the stored log and then from the index once recovery reopened it', async () => {
    const store = jsonlStore({ dir: t.dir })
    t.closing.push(store)
    const seeded = await createAgent({ model: scripted({ responses: [] }), store, sessionId: 's' })
    await seeded.close()
    // What a host killed during the turn leaves: m1 admitted and claimed by turn 1, the turn open.
    const opened = (await store.open('s'))!
    const m1 = createUserMessage('asked before the crash', { id: 'm1', source: { kind: 'user', delivery: 'followup' } })
    const crashed: [string, unknown][] = [
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [m1] }],
      ['turn/start', { turn: 1 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
    ]
    crashed.forEach(([type, data], i) => opened.writer.append(Object.freeze({ seq: opened.events.length + i, time: 2, type, data }) as SessionEvent))
    await opened.writer.close()

    const gate = stepGate()
    const { host, server } = await serve([gate.plugin])
    // Not loaded: the stored log's fold — claimed by the open turn, not delivered.
    const cold = await call(server, 'GET', '/v1/sessions/s/messages/m1')
    expect(await cold.json()).toEqual({ messageId: 'm1', admittedSeq: opened.events.length, lane: 'next-turn', state: 'claimed', turn: 1, stepped: false })
    expect(await host.sessions.peek('s')).toBeUndefined()

    // Opened (a send loads it): recovery closes turn 1 interrupted and re-queues m1; turn 2 takes it and waits at its step.
    expect((await call(server, 'POST', '/v1/sessions/s/messages', { content: 'after', clientMessageId: 'm2' })).status).toBe(202)
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 2 held before its step')
    const { agent } = await host.sessions.use('s')
    const reads = countReads(agent)
    const seen = agent.session.length
    for (const id of ['m1', 'm2']) {
      const { body, folded } = await statusAndFold(server, agent, reads, id)
      expect(body, id).toBe(folded)
    }
    expect(JSON.parse((await statusAndFold(server, agent, reads, 'm1')).body)).toMatchObject({ state: 'claimed', turn: 2, stepped: false })
    gate.open()
    await waitFor(() => agent.status === 'idle' && agent.inbox.nextTurn.length === 0, 15_000, 'the session idle with nothing queued')
    for (const id of ['m1', 'm2']) {
      const { body, folded } = await statusAndFold(server, agent, reads, id)
      expect(body, id).toBe(folded)
      expect(JSON.parse(body)).toMatchObject({ state: 'claimed', stepped: true, turnEnd: 'completed' })
    }
    expect(reads.route).toEqual({ whole: 0, single: seen })
  })
})
