import { hostname } from 'node:os'
import { describe, expect, it, vi } from 'vitest'
import { listen } from '../src/index.js'
import { available, useCluster } from './cluster-helpers.js'
import { makeHost, perTest, req } from './helpers.js'

// Security review: a 409 session-locked passed the store's message and details to the client —
// the JSONL lock file's absolute path (with "delete it" advice), the pid and machine holding it,
// or PostgreSQL's host, port and database. What names the server's side stays on the server, as
// for an unreadable log; on a cluster, how long the holder's lease runs is still said.

const state = perTest()

describe('host: session-locked names no file, process or database of the server (review)', () => {
  it('JSONL: a session another host on the store holds', async () => {
    const a = makeHost(state.dir).host
    const b = makeHost(state.dir).host
    state.closing.push(a)
    const server = await listen(b, { hostname: '127.0.0.1', port: 0, hasToken: false })
    state.closing.push(server)
    expect((await req(a, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const answer = await fetch(`http://127.0.0.1:${server.port}/v1/sessions/s/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientMessageId: 'x', content: 'hi' }) })
    expect(answer.status).toBe(409)
    const text = await answer.text()
    const { error } = JSON.parse(text)
    expect(error).toEqual({ code: 'session-locked', message: expect.stringContaining('Session "s" is open for writing in another process'), details: { id: 's' } })
    for (const secret of [state.dir, '.lock', `${process.pid}`, `"${hostname()}"`]) expect(text, secret).not.toContain(secret)
  })
})

// Review of e4ec230: the store's words left the answer and went nowhere — after a crash that left
// a lock file behind, the operator had no way to learn which file to delete. They go to the
// host's log, once per text however often a client retries.
describe('host: what session-locked keeps from the client goes to the host\'s log', () => {
  it('JSONL: the store\'s message, lock file included, logged once for two refused requests', async () => {
    const a = makeHost(state.dir).host
    const b = makeHost(state.dir).host
    state.closing.push(a, b)
    expect((await req(a, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      for (let i = 0; i < 2; i++) expect((await req(b, 'POST', '/v1/sessions/s/messages', { clientMessageId: `x${i}`, content: 'hi' })).status).toBe(409)
      const lines = logged.mock.calls.map((call) => call.join(' ')).filter((line) => line.includes('session-locked'))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^\[bosun host\] session-locked: Session "s" is open for writing in this process .* If no such process is running, delete .*s\.jsonl\.lock\.$/)
    } finally {
      logged.mockRestore()
    }
  })
})

describe.skipIf(!available)('host cluster: session-locked names neither the lease owner nor the database (review)', () => {
  const cluster = useCluster()

  it('a change run on a host that does not own the session', async () => {
    const [a, b] = cluster.hosts(2, {})
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'held' })).status).toBe(201)
    // Marked as already relayed, so B runs it itself (what a lease lost meanwhile looks like).
    const answer = await req(b!.host, 'POST', '/v1/sessions/held/wake', {}, { 'x-bosun-relayed': '1' })
    expect(answer.status).toBe(409)
    const text = await answer.text()
    expect(JSON.parse(text).error).toEqual({ code: 'session-locked', message: expect.stringContaining('Session "held" is open for writing in another host of the cluster'), details: { id: 'held', expiresInMs: expect.any(Number) } })
    expect(text).not.toMatch(/postgres(ql)?:\/\/|127\.0\.0\.1|database|host-a/)
  })

  // Review of e4ec230: the lease owner it passed on is the store's `owner`, by default
  // `<hostname>:<pid>:<random>` — the machine and process the answer was meant not to name.
  it('with the stores\' default owners: neither the machine nor the process is named', async () => {
    const [a, b] = cluster.hosts(2, { defaultOwners: true })
    expect(a!.store.owner).toContain(`${hostname()}:${process.pid}:`)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'held' })).status).toBe(201)
    const answer = await req(b!.host, 'POST', '/v1/sessions/held/wake', {}, { 'x-bosun-relayed': '1' })
    expect(answer.status).toBe(409)
    const text = await answer.text()
    const { error } = JSON.parse(text)
    expect(error).toEqual({ code: 'session-locked', message: expect.stringContaining('Session "held" is open for writing in another host of the cluster'), details: { id: 'held', expiresInMs: expect.any(Number) } })
    for (const secret of [hostname(), `:${process.pid}:`, a!.store.owner]) expect(text, secret).not.toContain(secret)
  })
})
