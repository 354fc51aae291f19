import { describe, expect, it } from 'vitest'
import { createAgent, createUserMessage, definePlugin, memoryStore, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { json, perTest, req, waitFor } from './helpers.js'

const t = perTest()

/** The JSONL store, counting the calls that read whole logs or every session. */
function counted(dir: string): { store: Store; reads: string[] } {
  const inner = jsonlStore({ dir })
  const reads: string[] = []
  const store: Store = {
    name: inner.name,
    create: (header, seed) => inner.create(header, seed),
    open: (id) => inner.open(id),
    read: (id) => { reads.push(`read ${id}`); return inner.read!(id) },
    has: (id) => inner.has!(id),
    header: (id) => inner.header!(id),
    list: () => { reads.push('list'); return inner.list() },
    close: () => inner.close(),
  }
  return { store, reads }
}

function hostOn(store: Store): Host {
  // Listed before the host, so closed after it (the list closes in reverse): a store left open keeps its journal file open.
  t.closing.push(store)
  return createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'ok' }] }), store, sessionId }),
    limits: { keepAliveMs: 200 },
  })
}

describe('resuming a cold session', () => {
  it('asks the store whether the session exists (has) and what its header says (header) instead of reading its whole log before opening it', async () => {
    const first = hostOn(jsonlStore({ dir: t.dir }))
    expect((await req(first, 'POST', '/v1/sessions', { id: 'cold' })).status).toBe(201)
    await first.close()

    const { store, reads } = counted(t.dir)
    const host = hostOn(store)
    t.closing.push(host)
    expect((await req(host, 'POST', '/v1/sessions/cold/messages', { content: 'hi', clientMessageId: 'm' })).status).toBe(202)
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/cold'))).status === 'idle' && host.sessions.liveIds().includes('cold'))
    expect(reads).toEqual([])
    // An unknown id is still told apart without reading anything.
    expect((await json(req(host, 'POST', '/v1/sessions/ghost/messages', { content: 'x', clientMessageId: 'g' }))).error.code).toBe('session-not-found')
    expect(reads).toEqual([])
  })

  it('on a store without has but with header (as PostgreSQL), the header it reads tells that the session exists: no whole-log read before the open', async () => {
    const inner = jsonlStore({ dir: t.dir })
    const reads: string[] = []
    const store: Store = {
      name: 'no-has',
      create: (header, seed) => inner.create(header, seed),
      open: (id) => inner.open(id),
      read: (id) => { reads.push(`read ${id}`); return inner.read!(id) },
      header: (id) => inner.header!(id),
      list: () => { reads.push('list'); return inner.list() },
      close: () => inner.close(),
    }
    const first = hostOn(jsonlStore({ dir: t.dir }))
    expect((await req(first, 'POST', '/v1/sessions', { id: 'cold' })).status).toBe(201)
    await first.close()
    const host = hostOn(store)
    t.closing.push(host)
    expect((await req(host, 'POST', '/v1/sessions/cold/messages', { content: 'hi', clientMessageId: 'm' })).status).toBe(202)
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/cold'))).status === 'idle' && host.sessions.liveIds().includes('cold'))
    expect((await json(req(host, 'POST', '/v1/sessions/ghost/messages', { content: 'x', clientMessageId: 'g' }))).error.code).toBe('session-not-found')
    expect(reads).toEqual([])
  })

  it('runs input that was admitted but never reached its turn (the process died between the two): nothing accepted is left unanswered', async () => {
    const store = memoryStore()
    // A send's splice is in the log, the turn it would have started is not: what a kill (or a lost lease) leaves.
    const dying = await createAgent({ model: scripted(), store, sessionId: 'stalled' })
    dying.followup('answered before')
    await dying.whenIdle()
    // As the host admits a follow-up: its source records the waking delivery.
    dying.inbox.splice('next-turn', 0, 0, [createUserMessage('accepted, then the host died', { id: 'late', source: { kind: 'user', delivery: 'followup' } })])
    // Closing runs nothing queued: the log is left as the kill left it (a live agent would be borrowed, not resumed).
    await dying.close()
    const host = hostOn(store)
    t.closing.push(host)
    // Resumed (as a cluster's takeover resumes a dead host's sessions), it runs the waiting message unasked.
    await host.sessions.use('stalled')
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/stalled/messages/late'))).stepped === true)
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/stalled'))).status === 'idle')
    const turnEnds = (await host.sessions.peek('stalled'))!.agent.session.events.filter((e) => e.type === 'turn/end')
    expect(turnEnds.map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['completed', 'completed'])
  })

  it('leaves input a Stop parked alone when it resumes a session', async () => {
    const store = memoryStore()
    const hold = definePlugin({ name: 'hold', setup: ({ hooks }) => void hooks.preStep.tapPromise('hold', () => new Promise(() => {})) })
    const stopped = await createAgent({ model: scripted(), store, sessionId: 'parked', plugins: [hold] })
    stopped.followup('runs until stopped')
    await waitFor(() => stopped.session.events.some((e) => e.type === 'turn/start'))
    stopped.followup(createUserMessage('parked by the stop', { id: 'parked' }))
    stopped.abort('stop')
    await stopped.whenIdle()
    await stopped.close()
    const host = hostOn(store)
    t.closing.push(host)
    // The resume decides whether to wake before it resolves: idle, the parked message still queued.
    await host.sessions.use('parked')
    const summary = await json(req(host, 'GET', '/v1/sessions/parked'))
    expect(summary).toMatchObject({ status: 'idle', inbox: { 'next-turn': [{ id: 'parked' }] } })
  })

  it('leaves injected input alone when it resumes a session: an inject waits for the next turn, after a restart too', async () => {
    const store = memoryStore()
    const first = hostOn(store)
    expect((await req(first, 'POST', '/v1/sessions', { id: 'quiet' })).status).toBe(201)
    const sent = await json(req(first, 'POST', '/v1/sessions/quiet/messages', { content: 'context for later', clientMessageId: 'ctx', delivery: 'inject' }))
    expect(sent).toMatchObject({ accepted: true, delivery: 'inject', status: 'idle' })
    await first.close()
    const host = hostOn(store)
    t.closing.push(host)
    // The resume decides whether to wake before it resolves: idle, the injected message still queued.
    await host.sessions.use('quiet')
    expect(await json(req(host, 'GET', '/v1/sessions/quiet'))).toMatchObject({ status: 'idle', inbox: { 'next-step': [{ id: 'ctx' }] } })
  })
})
