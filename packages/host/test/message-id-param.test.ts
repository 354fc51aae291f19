// A message id in a URL is checked like a session id: the routes passed any text on (up to the
// URL limit) to the log's fold, the inbox and, on a cluster, the mailbox and the relay.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { MAX_MESSAGE_ID } from '../src/request.js'
import { makeHost, perTest } from './helpers.js'

const t = perTest()

async function call(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: response.status, body: await response.json() }
}

async function serve(): Promise<number> {
  const { host, store } = makeHost(t.dir)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  // Closed in reverse: the server, the host, then the store (left open, its journal file stays open).
  t.closing.push(store, host, server)
  return server.port
}

const BAD = [
  ['too long', 'm'.repeat(MAX_MESSAGE_ID + 1)],
  ['a space', 'bad%20id'],
  ['a slash', 'a%2Fb'],
  ['a leading dot', '.hidden'],
  ['a non-ASCII letter', 'caf%C3%A9'],
  ['a quote', 'x%22y'],
] as const

describe('host: message ids in URLs are checked (1-256 letters, digits, ".", "_", ":", "-")', () => {
  it.each(BAD)('%s: 400 invalid-request naming the parameter, on every route that takes one', async (_, id) => {
    const port = await serve()
    expect((await call(port, 'POST', '/v1/sessions', { id: 's1' })).status).toBe(201)
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/sessions/s1/messages/${id}`],
      ['DELETE', `/v1/sessions/s1/inbox/${id}`],
      ['PATCH', `/v1/sessions/s1/inbox/${id}`, { content: 'edited' }],
      ['POST', `/v1/sessions/s1/inbox/${id}/promote`, {}],
      // Checked before the session is looked up.
      ['GET', `/v1/sessions/nosuch/messages/${id}`],
    ]
    for (const [method, path, body] of routes) {
      const answer = await call(port, method, path, body)
      expect(answer, `${method} ${path.slice(0, 60)}`).toEqual({
        status: 400,
        body: { error: { code: 'invalid-request', message: expect.stringMatching(/^Invalid message id .* in the URL \(\d+ characters\): a message id is 1-256 letters, digits/), details: { path: ':messageId' } } },
      })
    }
    // An over-long id is shown cut short, not echoed whole.
    const long = await call(port, 'GET', `/v1/sessions/s1/messages/${'m'.repeat(5000)}`)
    expect(long.body.error.message.length).toBeLessThan(400)
  })

  it('every id the host, the core and the subagents plugin make is accepted', async () => {
    const port = await serve()
    const clientId = `c${'x'.repeat(127)}`
    expect((await call(port, 'POST', '/v1/sessions', { id: 's1' })).status).toBe(201)
    expect((await call(port, 'POST', '/v1/sessions/s1/messages', { clientMessageId: clientId, content: 'hi' })).status).toBe(202)
    expect((await call(port, 'GET', `/v1/sessions/s1/messages/${clientId}`)).status).toBe(200)
    for (const id of [randomUUID(), `settle:${'c'.repeat(128)}:12`, 'm'.repeat(MAX_MESSAGE_ID), 'a.b_c:d-e']) {
      const answer = await call(port, 'GET', `/v1/sessions/s1/messages/${id}`)
      expect(answer.body.error.code, id).toBe('message-not-found')
      expect((await call(port, 'DELETE', `/v1/sessions/s1/inbox/${id}`)).body.error.code).toBe('queue-item-not-found')
    }
    // `inbox/order` is a route of its own, not a message id.
    expect((await call(port, 'PUT', '/v1/sessions/s1/inbox/order', { order: [] })).status).toBe(200)
  })
})
