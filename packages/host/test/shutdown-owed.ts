// A session a host's shutdown left owing its queue: turn 1 (message 'a') aborted with reason
// `shutdown` while follow-up 'b' waited behind it, so the next host that opens the session owes 'b'
// its turn (agent.recovery.waiting). Shared by the restart tests.
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { expect } from 'vitest'
import { createHost } from '../src/index.js'
import { json, req, waitFor } from './helpers.js'

/** Leaves session `id` in `dir` owing follow-up 'b' after a host's close; each store and host is pushed on `closing`. */
export async function shutDownOwingQueue(dir: string, id: string, closing: { close(): Promise<void> }[]): Promise<void> {
  // Each host's store closed after it (the list closes in reverse): a store left open keeps its journal file open.
  const store = jsonlStore({ dir })
  closing.push(store)
  const host = createHost({
    store,
    // Turn 1 streams until it is aborted; the grace below is shorter than its answer.
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'a long answer', chunkSize: 1, delayMs: 60_000 }] }), store, sessionId }),
  })
  closing.push(host) // closed below; again at the end (a no-op) if an assertion fails first
  expect((await req(host, 'POST', '/v1/sessions', { id })).status).toBe(201)
  expect((await req(host, 'POST', `/v1/sessions/${id}/messages`, { content: 'a', clientMessageId: 'a' })).status).toBe(202)
  await waitFor(async () => (await json(req(host, 'GET', `/v1/sessions/${id}`))).status === 'running', 15_000, 'turn 1 running')
  expect((await req(host, 'POST', `/v1/sessions/${id}/messages?wait=durable`, { content: 'b', clientMessageId: 'b' })).status).toBe(202)
  await host.close({ graceMs: 0 })
}
