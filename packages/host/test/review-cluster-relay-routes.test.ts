import { afterEach, describe, expect, it, vi } from 'vitest'
import { json, req, waitFor } from './helpers.js'
import { admissionsOf, available, useCluster } from './cluster-helpers.js'

// Security review: a lease owner ran whatever method and path a mailbox row named, on its own app
// with its token. Only a writer to the database could post such a row, but a host runs from the
// mailbox only what it would relay itself: a change to that session by one of the relayed routes.

describe.skipIf(!available)('host cluster: the owner runs only relayable routes from the mailbox (review)', () => {
  const cluster = useCluster()
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('rows inserted by hand naming another route, another session or a bad message id are refused with an error the sender sees; nothing runs', async () => {
    const hosts = cluster.hosts(2, {})
    const [a, b] = hosts
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'own-1' })).status).toBe(201)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'other-1' })).status).toBe(201)
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))

    const insert = (messageId: string, kind: string, body: unknown) =>
      cluster.sql(`INSERT INTO "${hosts.schema}".session_mailbox (session_id, message_id, kind, body) VALUES ($1, $2, $3, $4)`, ['own-1', messageId, kind, JSON.stringify(body)])
    // Another route (session create), with a secret in its query and body.
    await insert('request:create', 'request', { method: 'POST', path: '/v1/sessions?token=sekrit-q', body: { id: 'made-by-row', metadata: { key: 'sekrit-b' } } })
    // A relayable route of another session, posted in this session's mailbox (encoded, too).
    await insert('m-elsewhere', 'message', { method: 'POST', path: '/v1/sessions/other-1/messages?wait=durable', body: { clientMessageId: 'm-elsewhere', content: 'x' } })
    await insert('request:elsewhere', 'request', { method: 'POST', path: '/v1/%73essions/other-1/wake', body: {} })
    // A relayable path with the wrong method, an item id the route refuses, a message posted as a request.
    await insert('request:method', 'request', { method: 'GET', path: '/v1/sessions/own-1/messages' })
    await insert('request:item', 'request', { method: 'DELETE', path: '/v1/sessions/own-1/inbox/%2E%2E%2Fx' })
    await insert('request:kind', 'request', { method: 'POST', path: '/v1/sessions/own-1/messages?wait=durable', body: { clientMessageId: 'm-as-request', content: 'x' } })
    // Not a request at all, and a path that is a URL of another host.
    await insert('request:shape', 'request', 'POST /v1/sessions')
    await insert('request:host', 'request', { method: 'POST', path: '@127.0.0.2/v1/sessions/own-1/wake', body: {} })
    // The one row a host would relay itself: it still runs, after the refused ones.
    await insert('m-ok', 'message', { method: 'POST', path: '/v1/sessions/own-1/messages?wait=durable', body: { clientMessageId: 'm-ok', content: 'hi' } })

    const refusedIds = ['request:create', 'm-elsewhere', 'request:elsewhere', 'request:method', 'request:item', 'request:kind', 'request:shape', 'request:host']
    await waitFor(async () => (await a!.store.mailbox.get('own-1', 'm-ok'))?.deliveredSeq != null, 30_000, 'the relayable row to be carried out')
    for (const messageId of refusedIds) {
      const entry = (await a!.store.mailbox.get('own-1', messageId))!
      expect(entry.doneAt, messageId).not.toBeNull()
      expect(entry.outcome, messageId).toMatchObject({ status: 400, body: { error: { code: 'invalid-request', details: { id: 'own-1', requestId: messageId } } } })
    }

    // Nothing ran: no session made, nothing admitted anywhere but m-ok.
    expect(await a!.store.read('made-by-row')).toBeUndefined()
    const own = (await a!.store.read('own-1'))!.events
    const other = (await a!.store.read('other-1'))!.events
    expect(admissionsOf(own, 'm-ok')).toBe(1)
    for (const id of ['m-elsewhere', 'm-as-request']) expect(admissionsOf(own, id) + admissionsOf(other, id)).toBe(0)
    expect(other.some((e) => e.type.startsWith('agent/inbox') || e.type === 'turn/start')).toBe(false)

    // The sender (any host) sees the refusal where it looks the request or message up.
    const request = await req(b!.host, 'GET', '/v1/sessions/own-1/requests/request:create')
    expect(request.status).toBe(400)
    const error = (await json(request)).error
    expect(error.code).toBe('invalid-request')
    expect(error.message).toContain('"POST" "/v1/sessions" is not a route hosts relay')
    expect(error.message).toContain('send the change to any host\'s route')
    const message = await req(b!.host, 'GET', '/v1/sessions/own-1/messages/m-elsewhere')
    expect(message.status).toBe(400)
    expect((await json(message)).error.message).toContain('does not name this session')

    // One log line per refused row, naming it, without the query, body or anything secret in them.
    const lines = logged.filter((l) => l.includes('refused mailbox entry'))
    expect(lines).toHaveLength(refusedIds.length)
    for (const id of refusedIds) expect(lines.some((l) => l.includes(JSON.stringify(id)))).toBe(true)
    expect(logged.join('\n')).not.toContain('sekrit')
    expect(JSON.stringify((await a!.store.mailbox.get('own-1', 'request:create'))!.outcome)).not.toContain('sekrit')
  })
})
