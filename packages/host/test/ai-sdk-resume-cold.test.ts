// U2 (walking job 1 over HTTP): useChat's `resume: true` asks GET /v1/ai-sdk/chat/:id/stream on
// every page load. For a session no agent had open, the route opened it — and opening a session a
// shutdown left owing its queue (agent.recovery.waiting) runs that queue: a page load started model
// turns, where the session stream, the list and every other read leave a cold session alone
// (docs/host.md, "Sessions"). A cold session has no open turn to resume unless a crash left one.
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost } from '../src/index.js'
import { json, perTest, req, waitFor } from './helpers.js'
import { shutDownOwingQueue } from './shutdown-owed.js'

const t = perTest()

describe('the AI SDK resume route on a session no agent has open', () => {
  it('answers 204 from the stored log and runs none of the queue a shutdown left owed', async () => {
    await shutDownOwingQueue(t.dir, 'deploy', t.closing)

    const secondStore = jsonlStore({ dir: t.dir })
    t.closing.push(secondStore)
    let built = 0
    const second = createHost({
      store: secondStore,
      agentFactory: ({ sessionId, store }) => {
        built += 1
        return createAgent({ model: scripted({ responses: [{ text: 'b answered' }] }), store, sessionId })
      },
    })
    t.closing.push(second)

    const resumed = await req(second, 'GET', '/v1/ai-sdk/chat/deploy/stream')
    expect(resumed.status).toBe(204)
    expect(built).toBe(0)
    const snapshot = await json(req(second, 'GET', '/v1/sessions/deploy'))
    expect(snapshot).toMatchObject({ loaded: false, status: 'idle' })
    expect(snapshot.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['b'])

    // A message still resumes it, and the queue it owed runs first (close-restart-queue.test.ts).
    expect((await req(second, 'POST', '/v1/sessions/deploy/messages', { content: 'c', clientMessageId: 'c' })).status).toBe(202)
    await waitFor(async () => (await json(req(second, 'GET', '/v1/sessions/deploy/messages/b'))).stepped === true, 15_000, 'b stepped')
    expect(built).toBe(1)
  })

  it('still resumes a session a crash left mid-turn, and streams the turn its recovery starts', async () => {
    // The log a crash leaves when it comes after a turn claimed its message and before the message reached the model.
    const store = jsonlStore({ dir: t.dir })
    const message = { id: 'lost', role: 'user', content: [{ type: 'text', text: 'hello' }], source: { kind: 'user', delivery: 'followup' } }
    const events = [
      { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, inserted: [message] } },
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'agent/inbox/spliced', data: { target: 'next-turn', start: 0, removedCount: 1, inserted: [] } },
    ].map((event, seq) => ({ seq, time: Date.now(), ...event }))
    const created = await store.create({ id: 'crashed', version: 1, createdAt: Date.now() }, events as never)
    await created.writer.close()
    await store.close()

    const secondStore = jsonlStore({ dir: t.dir })
    t.closing.push(secondStore)
    const second = createHost({
      store: secondStore,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'recovered', chunkSize: 1, delayMs: 50 }] }), store, sessionId }),
    })
    t.closing.push(second)
    const resumed = await req(second, 'GET', '/v1/ai-sdk/chat/crashed/stream')
    expect(resumed.status).toBe(200)
    const text = await resumed.text()
    expect(text).toContain('"messageId":"bosun-turn-2"')
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  })
})
