import { describe, expect, it } from 'vitest'
import { req, waitFor } from './helpers.js'
import { available, useCluster, type ClusterHost } from './cluster-helpers.js'

/** Counts the whole-log reads of a host's cluster store (its `read`), from now on. */
function countReads(h: ClusterHost): { count: number } {
  const counter = { count: 0 }
  const read = h.store.read.bind(h.store)
  h.store.read = (id) => {
    counter.count++
    return read(id)
  }
  return counter
}

describe.skipIf(!available)('host cluster on PostgreSQL — what the routes read', () => {
  const cluster = useCluster()

  it('the AI SDK resume route on a non-owner answers 204 for a session whose last turn ended without reading its log', async () => {
    const [a, b] = cluster.hosts(2, { responses: () => [{ text: 'done', chunkSize: 2 }] })
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'idle-1' })).status).toBe(201)
    const reads = countReads(b!)
    // No turn yet: the store does not know a status, so the log is read — from its end, not whole
    // (cluster-tail-reads.test.ts) — and no turn is open.
    expect((await req(b!.host, 'GET', '/v1/ai-sdk/chat/idle-1/stream')).status).toBe(204)
    expect(reads.count).toBe(0)
    await req(a!.host, 'POST', '/v1/sessions/idle-1/messages?wait=durable', { clientMessageId: 'm-1', content: 'go' })
    await waitFor(async () => (await b!.store.sessionStatus('idle-1')) === 'idle', 30_000, 'the turn to end')
    reads.count = 0
    expect((await req(b!.host, 'GET', '/v1/ai-sdk/chat/idle-1/stream')).status).toBe(204)
    expect(reads.count).toBe(0)
    // An unknown session is still answered as before.
    expect((await req(b!.host, 'GET', '/v1/ai-sdk/chat/nobody/stream')).status).toBe(204)
  })
})
