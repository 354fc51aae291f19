import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { makeHost, perTest, req } from './helpers.js'

// Security review: a fork onto an id the store already has (a session not open on this host)
// answered 409 session-exists with the store's own message — for JSONL the session file's
// absolute path on the server ("Session "b" already exists (/srv/…/b.jsonl)"), for PostgreSQL its
// host, port and database — though the host never names its files (docs/host.md).

const state = perTest()

describe('host: session-exists names no file of the server (review)', () => {
  it('JSONL: a fork onto a stored session that is not open here', async () => {
    const first = makeHost(state.dir).host
    for (const id of ['a', 'b']) expect((await req(first, 'POST', '/v1/sessions', { id })).status).toBe(201)
    await first.close()
    const host = makeHost(state.dir).host
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    state.closing.push(server)
    const answer = await fetch(`http://127.0.0.1:${server.port}/v1/sessions/a/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'b' }) })
    expect(answer.status).toBe(409)
    const text = await answer.text()
    expect(JSON.parse(text)).toEqual({ error: { code: 'session-exists', message: 'Session "b" already exists: choose another id.', details: { id: 'b' } } })
    expect(text).not.toContain(state.dir)
    expect(text).not.toContain('.jsonl')
  })
})
