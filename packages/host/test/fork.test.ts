import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../src/index.js'
import { json, makeHost, perTest, req, waitFor } from './helpers.js'

const t = perTest()

describe('host: fork errors', () => {
  it('answers each core failure with its own code: taken id 409, bad turn 400, unreadable log 500 without the file path', async () => {
    const { host: h, store } = makeHost(t.dir, () => [{ text: 'one' }])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, h)
    await req(h, 'POST', '/v1/sessions', { id: 'p' })
    await req(h, 'POST', '/v1/sessions', { id: 'taken' })
    const taken = await req(h, 'POST', '/v1/sessions/p/fork', { id: 'taken' })
    expect(taken.status).toBe(409)
    expect((await json(taken)).error).toMatchObject({ code: 'session-exists', details: { id: 'taken' } })
    const turn = await json(req(h, 'POST', '/v1/sessions/p/fork', { id: 'c1', afterTurn: 7 }))
    expect(turn.error).toMatchObject({ code: 'invalid-request', details: { path: '/afterTurn' } })
    await req(h, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'm1', content: 'go' })
    await waitFor(async () => (await json(req(h, 'GET', '/v1/sessions/p/messages/m1'))).turnEnd === 'completed', 15_000, 'turn 1 to end')
    await h.close()

    // A damaged line before the end (not a torn tail) is CORRUPT_LOG: the operator's problem, not a bad request.
    const file = join(t.dir, 'p.jsonl')
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines.splice(1, 0, '{"not an event')
    await writeFile(file, lines.join('\n'))
    const { host: again, store: againStore } = makeHost(t.dir)
    t.closing.push(againStore, again)
    const damaged = await req(again, 'POST', '/v1/sessions/p/fork', { id: 'c2' })
    const text = await damaged.text()
    expect(damaged.status).toBe(500)
    expect(JSON.parse(text).error).toMatchObject({ code: 'internal-error', details: { id: 'p', cause: 'CORRUPT_LOG' } })
    expect(text).not.toContain(t.dir)
  })

  it('forks a live session right after its turn ended, though the turn is still in write-behind', async () => {
    // An hour-long batch window: nothing reaches the file until someone flushes.
    const store = jsonlStore({ dir: t.dir, batchWindowMs: 3_600_000 })
    t.closing.push(store)
    const h = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'done' }] }), store, sessionId }),
    })
    t.closing.push(h)
    await req(h, 'POST', '/v1/sessions', { id: 'p' })
    await req(h, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'm1', content: 'go' })
    await waitFor(async () => (await json(req(h, 'GET', '/v1/sessions/p/messages/m1'))).turnEnd === 'completed', 15_000, 'turn 1 to end')
    const fork = await req(h, 'POST', '/v1/sessions/p/fork', { id: 'child', afterTurn: 1 })
    expect(fork.status).toBe(201)
    const { seedLength } = await json(fork)
    const child = await json(req(h, 'GET', '/v1/sessions/child/events?limit=1000'))
    const seed = child.events.slice(0, seedLength).map((e: { type: string }) => e.type)
    expect(seed).toContain('turn/end')
    expect(seed).toContain('assistant/message')
  })
})
