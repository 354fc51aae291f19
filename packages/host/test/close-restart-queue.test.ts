// A deploy's restart (review Y10): `bosun serve` got SIGTERM while a turn ran and a follow-up waited
// behind it; closing aborted the turn (`aborted`, reason `closed`), which read like a user's Stop
// (now `shutdown`: host.close() aborts as a shutdown, recovery owes the queue its turns),
// so after the restart the follow-up stayed queued — even once the session was opened again — until
// someone sent another message or woke it. A SIGKILL did better (the crash repair woke it).
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../src/index.js'
import { json, perTest, req, waitFor } from './helpers.js'

const t = perTest()

describe('a host closed while a turn runs and a follow-up waits', () => {
  it('the next host runs the follow-up when the session is opened again: a shutdown is not a Stop', async () => {
    // Each host's store closed after it (the list closes in reverse): a store left open keeps its journal file open.
    const firstStore = jsonlStore({ dir: t.dir })
    t.closing.push(firstStore)
    const first = createHost({
      store: firstStore,
      // Turn 1 streams until it is aborted; the grace below is shorter than its answer.
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'a long answer', chunkSize: 1, delayMs: 60_000 }] }), store, sessionId }),
    })
    t.closing.push(first) // closed below; again at the end (a no-op) if an assertion fails first
    expect((await req(first, 'POST', '/v1/sessions', { id: 'deploy' })).status).toBe(201)
    expect((await req(first, 'POST', '/v1/sessions/deploy/messages', { content: 'a', clientMessageId: 'a' })).status).toBe(202)
    await waitFor(async () => (await json(req(first, 'GET', '/v1/sessions/deploy'))).status === 'running', 15_000, 'turn 1 running')
    const queued = await req(first, 'POST', '/v1/sessions/deploy/messages?wait=durable', { content: 'b', clientMessageId: 'b' })
    expect(queued.status).toBe(202)
    await first.close({ graceMs: 0 })

    const secondStore = jsonlStore({ dir: t.dir })
    t.closing.push(secondStore)
    const second = createHost({
      store: secondStore,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'b answered' }] }), store, sessionId }),
    })
    t.closing.push(second)
    const { agent } = await second.sessions.use('deploy')
    expect(agent.recovery.waiting).toEqual(['b'])
    await waitFor(async () => (await json(req(second, 'GET', '/v1/sessions/deploy/messages/b'))).stepped === true, 15_000, 'b stepped')
    await waitFor(() => agent.status === 'idle', 15_000, 'the session idle')
    const ends = agent.session.events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)
    expect(ends).toEqual([{ kind: 'aborted', reason: 'shutdown' }, { kind: 'completed' }])
  })
})
