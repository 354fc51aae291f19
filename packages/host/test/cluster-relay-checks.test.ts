// The relayed routes (POST /messages, the queue's operations, cancel, wake) on a host that may not
// own the session check the request as one host does before anything else — a bad `?wait` or body
// is refused there, not relayed (or not refused at all) — and find the owner with the route's own
// open: a config its plugin setups refuse is answered from that one open, not set up a second time
// by the route. Real PostgreSQL, hosts served on 127.0.0.1, a plugin whose setup counts its calls.
import { describe, expect, it } from 'vitest'
import { admissionsOf, available, refusingPlugin, useCluster, useServers } from './cluster-helpers.js'

type ErrorBody = { error: { code: string; details?: { path?: string } } }

const send = async (url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}

describe.skipIf(!available)('host cluster on PostgreSQL — the relayed routes check first and open once', () => {
  const cluster = useCluster()
  const serve = useServers()

  it('a bad ?wait is refused by a host that does not own the session, as by the owner', { timeout: 60_000 }, async () => {
    const [a, b] = cluster.hosts(2)
    const [onA, onB] = [await serve(a!), await serve(b!)]
    expect((await send(onA, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
    for (const url of [onA, onB]) {
      const refused = await send(url, 'POST', '/v1/sessions/s/messages?wait=bogus', { clientMessageId: 'm-1', content: 'hi' })
      expect({ status: refused.status, code: (refused.body as ErrorBody).error.code, path: (refused.body as ErrorBody).error.details?.path }).toEqual({ status: 400, code: 'invalid-request', path: '?wait' })
    }
    // Nothing relayed: no entry, and the id is still free.
    expect(await b!.store.mailbox.get('s', 'm-1')).toBeUndefined()
    expect((await send(onB, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'm-1', content: 'hi' })).status).toBe(202)
    expect(admissionsOf((await a!.store.read('s'))!.events, 'm-1')).toBe(1)
  })

  it('a config the setups refuse is set up once per request and answered', { timeout: 60_000 }, async () => {
    const { plugin, state } = refusingPlugin(false)
    const [a, b] = cluster.hosts(2, { plugins: () => [plugin] })
    expect((await send(await serve(a!), 'POST', '/v1/sessions', { id: 'stored' })).status).toBe(201)
    // A clean shutdown releases the lease: the session is cold, B opens it for each request.
    await a!.host.close()
    const onB = await serve(b!)
    state.refusing = true
    const requests: Array<[string, string, unknown]> = [
      ['POST', '/v1/sessions/stored/messages', { clientMessageId: 'm-1', content: 'hi' }],
      ['POST', '/v1/sessions/stored/cancel', {}],
      ['POST', '/v1/sessions/stored/wake', {}],
      ['PATCH', '/v1/sessions/stored/inbox/m-0', { content: 'edited' }],
      ['DELETE', '/v1/sessions/stored/inbox/m-0', undefined],
      ['POST', '/v1/sessions/stored/inbox/m-0/promote', {}],
      ['PUT', '/v1/sessions/stored/inbox/order', { order: [] }],
    ]
    for (const [method, path, body] of requests) {
      state.setups = 0
      const answer = await send(onB, method, path, body)
      // What one host answers a setup that throws (the host's log has the plugin's error).
      expect({ request: `${method} ${path}`, status: answer.status, code: (answer.body as ErrorBody).error.code, setups: state.setups })
        .toEqual({ request: `${method} ${path}`, status: 500, code: 'internal-error', setups: 1 })
    }
    // Accepted once the setups are: the route reads the body the check read before it.
    state.refusing = false
    const admitted = await send(onB, 'POST', '/v1/sessions/stored/messages?wait=durable', { clientMessageId: 'm-2', content: 'hello' })
    expect(admitted.status, JSON.stringify(admitted.body)).toBe(202)
    expect(admissionsOf((await b!.store.read('stored'))!.events, 'm-2')).toBe(1)
  })
})
