import { describe, expect, it } from 'vitest'
import { createAgent, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../src/index.js'
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

const hostOn = (store: Store) => createHost({
  store,
  agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'ok' }] }), store, sessionId }),
  limits: { keepAliveMs: 200 },
})

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
})
