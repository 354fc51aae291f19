import { createHash, timingSafeEqual } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, definePlugin, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, tokenMatches, type Host } from '../src/index.js'
import { json, makeHost, req, stepGate, tempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
const hosts: Host[] = []
/** Closed after the hosts: a store left open keeps its journal file open until the garbage collector. */
const stores: Store[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  for (const store of stores.splice(0)) await store.close()
  await cleanup()
})

function host(responses?: Parameters<typeof makeHost>[1], extra?: Parameters<typeof makeHost>[2]): Host {
  const { host: made, store } = makeHost(dir, responses, extra)
  hosts.push(made)
  stores.push(store)
  return made
}

async function idle(h: Host, id: string): Promise<void> {
  await waitFor(async () => {
    const snap = await json(req(h, 'GET', `/v1/sessions/${id}`))
    return snap.status === 'idle' && snap.inbox['next-turn'].length === 0 && snap.inbox['next-step'].length === 0
  }, 15_000, `session ${id} idle`)
}

describe('host: sessions and errors', () => {
  it('describes itself and creates, lists and reads sessions', async () => {
    const h = host()
    expect(await json(req(h, 'GET', '/v1/host'))).toMatchObject({ protocol: 'bosun-host/1', auth: 'none' })
    const created = await req(h, 'POST', '/v1/sessions', { id: 's1' })
    expect(created.status).toBe(201)
    expect(await json(created)).toMatchObject({ id: 's1', status: 'idle' })
    const again = await req(h, 'POST', '/v1/sessions', { id: 's1' })
    expect(again.status).toBe(409)
    expect((await json(again)).error.code).toBe('session-exists')
    const list = await json(req(h, 'GET', '/v1/sessions'))
    expect(list.sessions.map((s: { id: string }) => s.id)).toEqual(['s1'])
    const snap = await json(req(h, 'GET', '/v1/sessions/s1'))
    expect(snap).toMatchObject({ id: 's1', status: 'idle', inbox: { 'next-turn': [], 'next-step': [] } })
  })

  it('answers the SPEC error shapes', async () => {
    const h = host()
    const missing = await req(h, 'GET', '/v1/sessions/nope')
    expect(missing.status).toBe(404)
    expect(await json(missing)).toMatchObject({ error: { code: 'session-not-found' } })
    const badId = await req(h, 'GET', '/v1/sessions/..%2Fetc')
    expect(badId.status).toBe(400)
    expect((await json(badId)).error.code).toBe('invalid-request')
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    const badBody = await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'hi', delivery: 'shout' })
    expect(badBody.status).toBe(400)
    expect(await json(badBody)).toMatchObject({ error: { code: 'invalid-request', details: { path: '/delivery' } } })
    const missingField = await json(req(h, 'POST', '/v1/sessions/s/messages', { content: 'hi' }))
    expect(missingField.error.details.path).toBe('/clientMessageId')
    const notJson = await req(h, 'POST', '/v1/sessions/s/messages', '{nope')
    expect((await json(notJson)).error.code).toBe('invalid-request')
    const plain = await req(h, 'POST', '/v1/sessions/s/wake', 'x', { 'content-type': 'text/plain' })
    expect(plain.status).toBe(415)
    expect((await json(plain)).error.code).toBe('unsupported-media-type')
    const big = await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'x'.repeat(1024 * 1024 + 10) })
    expect(big.status).toBe(413)
    expect((await json(big)).error.code).toBe('payload-too-large')
    const route = await req(h, 'GET', '/v1/nothing')
    expect(route.status).toBe(404)
    expect((await json(route)).error.code).toBe('not-found')
  })

  it('fences foreign Host and Origin headers', async () => {
    const h = host()
    const foreign = await req(h, 'GET', '/v1/host', undefined, { host: 'evil.example:4477' })
    expect(foreign.status).toBe(403)
    expect((await json(foreign)).error.code).toBe('forbidden-origin')
    const origin = await req(h, 'GET', '/v1/host', undefined, { origin: 'http://evil.example' })
    expect(origin.status).toBe(403)
    const own = await req(h, 'GET', '/v1/host', undefined, { origin: 'http://127.0.0.1' })
    expect(own.status).toBe(200)
    const otherPort = await req(h, 'GET', '/v1/host', undefined, { origin: 'http://127.0.0.1:9999' })
    expect(otherPort.status).toBe(403)
  })

  it('requires the bearer token when configured, and never echoes it', async () => {
    const token = 'a'.repeat(40)
    const h = host(undefined, { auth: { token } })
    const none = await req(h, 'GET', '/v1/host')
    expect(none.status).toBe(401)
    const wrong = await req(h, 'GET', '/v1/host', undefined, { authorization: `Bearer ${'b'.repeat(40)}` })
    expect(wrong.status).toBe(401)
    const text = await wrong.text()
    expect(JSON.parse(text).error.code).toBe('not-authorized')
    expect(text).not.toContain(token)
    const short = await req(h, 'GET', '/v1/host', undefined, { authorization: 'Bearer a' })
    expect(short.status).toBe(401)
    const ok = await req(h, 'GET', '/v1/host', undefined, { authorization: `Bearer ${token}` })
    expect(ok.status).toBe(200)
    expect(tokenMatches(token, token)).toBe(true)
    expect(tokenMatches('x', token)).toBe(false)
  })
})

describe('host: token comparison', () => {
  it('compares SHA-256 digests of both sides with timingSafeEqual, whatever their lengths', () => {
    const token = 'p'.repeat(64)
    const seen: [Buffer, Buffer][] = []
    const recording = (a: Buffer, b: Buffer): boolean => {
      seen.push([a, b])
      return timingSafeEqual(a, b)
    }
    const cases: [string, boolean][] = [
      [token, true],
      [`${'p'.repeat(63)}q`, false], // one character off at the end
      [`q${'p'.repeat(63)}`, false], // one character off at the start
      ['p', false], // a prefix, much shorter
      ['p'.repeat(65), false], // longer
      ['', false],
    ]
    for (const [given, expected] of cases) {
      expect(tokenMatches(given, token, recording), JSON.stringify(given)).toBe(expected)
      expect(tokenMatches(given, token), JSON.stringify(given)).toBe(expected)
    }
    expect(seen).toHaveLength(cases.length)
    for (const [[a, b], [given]] of seen.map((pair, i) => [pair, cases[i]!] as const)) {
      expect(a.length).toBe(32)
      expect(b.length).toBe(32)
      expect(a.equals(createHash('sha256').update(given).digest())).toBe(true)
      expect(b.equals(createHash('sha256').update(token).digest())).toBe(true)
    }
  })
})

describe('host: browsers', () => {
  it('logs in for an HttpOnly cookie, opens streams with a short-lived ticket, and allows only configured CORS origins', async () => {
    const token = 'k'.repeat(40)
    const h = host(undefined, { auth: { token }, cors: { origins: ['https://app.example.com'] } })
    const wrong = await req(h, 'POST', '/v1/login', { token: 'nope' })
    expect(wrong.status).toBe(401)
    const login = await req(h, 'POST', '/v1/login', { token })
    expect(login.status).toBe(200)
    const cookie = login.headers.get('set-cookie')!
    expect(cookie).toMatch(/^bosun_host=[\w-]+; HttpOnly; SameSite=Strict; Path=\/v1/)
    expect(cookie).not.toContain(token)
    const jar = cookie.split(';')[0]!
    expect((await req(h, 'GET', '/v1/sessions', undefined, { cookie: jar })).status).toBe(200)
    expect((await req(h, 'GET', '/v1/sessions', undefined, { cookie: 'bosun_host=forged' })).status).toBe(401)
    await req(h, 'POST', '/v1/sessions', { id: 's' }, { cookie: jar })
    const { ticket } = await json(req(h, 'POST', '/v1/tickets', { path: '/v1/sessions/s/stream' }, { cookie: jar }))
    const stream = await req(h, 'GET', `/v1/sessions/s/stream?ticket=${ticket}`)
    expect(stream.status).toBe(200)
    await stream.body!.cancel()
    expect((await req(h, 'GET', `/v1/sessions/s?ticket=${ticket}`)).status).toBe(401) // tickets open streams only
    expect((await req(h, 'GET', '/v1/sessions/s/stream?ticket=forged')).status).toBe(401)
    await req(h, 'POST', '/v1/logout', {}, { cookie: jar })
    expect((await req(h, 'GET', '/v1/sessions', undefined, { cookie: jar })).status).toBe(401)

    const app = 'https://app.example.com'
    const preflight = await req(h, 'OPTIONS', '/v1/sessions', undefined, { origin: app, 'access-control-request-method': 'POST' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(app)
    const cors = await req(h, 'GET', '/v1/host', undefined, { origin: app, authorization: `Bearer ${token}` })
    expect(cors.status).toBe(200)
    expect(cors.headers.get('access-control-allow-origin')).toBe(app)
    // A cross-origin script can read the inbox version (etag, sent back as if-match) and retry-after.
    expect(cors.headers.get('access-control-expose-headers')?.split(/,\s*/).sort()).toEqual(['etag', 'retry-after', 'www-authenticate'])
    const missing = await req(h, 'GET', '/v1/sessions/nope', undefined, { origin: app, authorization: `Bearer ${token}` })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('access-control-allow-origin')).toBe(app)
    const corsStream = await req(h, 'GET', '/v1/sessions/s/stream', undefined, { origin: app, authorization: `Bearer ${token}` })
    expect(corsStream.headers.get('access-control-allow-origin')).toBe(app)
    await corsStream.body!.cancel()
    const unauthorized = await req(h, 'GET', '/v1/host', undefined, { origin: app })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(app)
    const other = await req(h, 'GET', '/v1/host', undefined, { origin: 'https://evil.example.com', authorization: `Bearer ${token}` })
    expect(other.status).toBe(403)
    const plain = await req(h, 'GET', '/v1/host', undefined, { authorization: `Bearer ${token}` })
    expect(plain.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('host: OpenAPI', () => {
  it('documents exactly the routes the app serves, with their body schemas', async () => {
    const h = host()
    const doc = await json(req(h, 'GET', '/v1/openapi.json'))
    expect(doc.openapi).toBe('3.1.0')
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort()
    const served = [...new Set(h.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`))].sort()
    expect(documented).toEqual(served)
    expect(doc.paths['/v1/sessions/{id}/messages'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/postMessage')
    expect(doc.components.schemas.postMessage.required).toEqual(['clientMessageId', 'content'])
  })
})

describe('host: session lifetime', () => {
  it('closes an idle session and resumes it on the next use', async () => {
    const h = host(undefined, { limits: { idleMs: 50 } })
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'a', content: 'one' })
    await waitFor(() => h.sessions.liveIds().length === 0, 15_000, 'the idle session to close')
    const receipt = await json(req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'b', content: 'two' }))
    expect(receipt).toMatchObject({ messageId: 'b', duplicate: false })
    expect(h.sessions.liveIds()).toEqual(['s'])
  })
})

describe('host: two hosts on one store', () => {
  it('the second answers session-locked for a session the first has open', async () => {
    const a = host()
    const b = host()
    await req(a, 'POST', '/v1/sessions', { id: 's' })
    const locked = await req(b, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'x', content: 'hi' })
    expect(locked.status).toBe(409)
    expect((await json(locked)).error.code).toBe('session-locked')
    // Reading never takes the session: the second host can still read it.
    expect((await req(b, 'GET', '/v1/sessions/s/events')).status).toBe(200)
  })
})

describe('host: admission receipts', () => {
  it('answers a receipt, is idempotent by clientMessageId, and across a restart', async () => {
    const h = host()
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    const first = await req(h, 'POST', '/v1/sessions/s/messages?wait=durable', { clientMessageId: 'c-1', content: 'hello' })
    expect(first.status).toBe(202)
    const receipt = await json(first)
    expect(receipt).toMatchObject({ accepted: true, messageId: 'c-1', duplicate: false, lane: 'next-turn', delivery: 'followup', durable: true })
    expect(typeof receipt.seq).toBe('number')
    const retry = await json(req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'c-1', content: 'hello' }))
    expect(retry).toMatchObject({ messageId: 'c-1', duplicate: true, seq: receipt.seq, lane: 'next-turn' })
    await idle(h, 's')
    const events = (await json(req(h, 'GET', '/v1/sessions/s/events?limit=1000'))).events as { type: string; data: any }[]
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    expect(events.filter((e) => e.type === 'agent/inbox/spliced' && e.data.inserted.some((m: { id: string }) => m.id === 'c-1'))).toHaveLength(1)

    await h.close()
    hosts.splice(hosts.indexOf(h), 1)
    const restarted = host()
    const afterRestart = await json(req(restarted, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'c-1', content: 'hello' }))
    expect(afterRestart).toMatchObject({ messageId: 'c-1', duplicate: true, seq: receipt.seq, durable: true, position: null })
    await idle(restarted, 's')
    const after = (await json(req(restarted, 'GET', '/v1/sessions/s/events?limit=1000'))).events as { type: string }[]
    expect(after.filter((e) => e.type === 'turn/start')).toHaveLength(1)
  })

  it('pages events without resuming the session', async () => {
    const h = host()
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'a', content: 'one' })
    await idle(h, 's')
    await h.close()
    hosts.splice(hosts.indexOf(h), 1)
    const cold = host()
    const page1 = await json(req(cold, 'GET', '/v1/sessions/s/events?limit=2'))
    expect(page1.events.map((e: { seq: number }) => e.seq)).toEqual([0, 1])
    expect(page1.next).toBe(1)
    const page2 = await json(req(cold, 'GET', `/v1/sessions/s/events?after=${page1.next}&limit=1000`))
    expect(page2.events[0].seq).toBe(2)
    expect(page2.next).toBeNull()
    expect(cold.sessions.liveIds()).toEqual([])
    const list = await json(req(cold, 'GET', '/v1/sessions'))
    expect(list.sessions[0]).toMatchObject({ id: 's', loaded: false, queue: { 'next-turn': 0, 'next-step': 0 } })
    expect(cold.sessions.liveIds()).toEqual([])
    const status = await json(req(cold, 'GET', '/v1/sessions/s/messages/a'))
    expect(status).toMatchObject({ state: 'claimed', turn: 1, stepped: true, turnEnd: 'completed' })
    expect(cold.sessions.liveIds()).toEqual([])
    const bad = await req(cold, 'GET', '/v1/sessions/s/events?limit=0')
    expect(bad.status).toBe(400)
  })

  it('tells where a message went: queued, claimed, canceled, rejected; removes queued items', async () => {
    // The first turn's step starts (the message reaches the model) before the plugin refuses: it
    // refuses from turn 2 on. Turn 1 is held at its first step while the queue is read and edited,
    // whatever the machine's speed (a 220 ms streamed answer could end first on a busy machine).
    const gate = stepGate()
    const deny = definePlugin({
      name: 'deny',
      setup(ctx) {
        ctx.hooks.preStep.tapPromise('deny', async (decision, { turn }) => (turn >= 2 ? { kind: 'reject', metadata: { reason: 'closed for lunch' } } : decision))
      },
    })
    const store = jsonlStore({ dir })
    stores.push(store)
    const h = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'an answer' }] }), store, sessionId, plugins: [gate.plugin, deny] }),
      limits: { keepAliveMs: 200 },
    })
    hosts.push(h)
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'first', content: 'go' })
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 to reach its first step')
    const queued = await json(req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'second', content: 'then' }))
    expect(queued).toMatchObject({ lane: 'next-turn', position: 0, status: 'running' })
    const third = await json(req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'third', content: 'later' }))
    expect(third.position).toBe(1)
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/second'))).toMatchObject({ state: 'queued', lane: 'next-turn', position: 0 })
    const removed = await req(h, 'DELETE', '/v1/sessions/s/inbox/third')
    expect(removed.status).toBe(200)
    const again = await req(h, 'DELETE', '/v1/sessions/s/inbox/third')
    expect(again.status).toBe(404)
    expect((await json(again)).error.code).toBe('queue-item-not-found')
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/third'))).toMatchObject({ state: 'canceled' })
    const claimed = await req(h, 'DELETE', '/v1/sessions/s/inbox/first')
    expect((await json(claimed)).error.code).toBe('queue-item-not-found')
    gate.open()
    await idle(h, 's')
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/first'))).toMatchObject({ state: 'claimed', turn: 1, stepped: true })
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/second'))).toMatchObject({ state: 'rejected', turn: 2, by: 'deny', metadata: { reason: 'closed for lunch' } })
    const unknown = await req(h, 'GET', '/v1/sessions/s/messages/ghost')
    expect(unknown.status).toBe(404)
    expect((await json(unknown)).error.code).toBe('message-not-found')
  })

  it('cancels with keepInbox (parked), wakes, and reports a rerouted steer', async () => {
    // Turn 1 is held at its first step until the cancel: m2 is queued behind it, whatever the machine's speed.
    const gate = stepGate()
    const { host: h, store } = makeHost(dir, () => [{ text: 'an answer' }], {}, [gate.plugin])
    hosts.push(h)
    stores.push(store)
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm1', content: 'go' })
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 to reach its first step')
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm2', content: 'queued' })
    const canceled = await json(req(h, 'POST', '/v1/sessions/s/cancel', { keepInbox: true }))
    expect(canceled.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['m2'])
    gate.open()
    await waitFor(async () => (await json(req(h, 'GET', '/v1/sessions/s'))).status === 'idle')
    const parked = await json(req(h, 'GET', '/v1/sessions/s'))
    expect(parked.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['m2'])
    const woke = await req(h, 'POST', '/v1/sessions/s/wake', {})
    expect(woke.status).toBe(200)
    await idle(h, 's')
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/m2'))).toMatchObject({ state: 'claimed', stepped: true })
    const steer = await json(req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'm3', content: 'steer me', delivery: 'steer' }))
    expect(steer).toMatchObject({ delivery: 'steer', lane: 'next-step', duplicate: false })
    await idle(h, 's')
    const cleared = await json(req(h, 'POST', '/v1/sessions/s/cancel', {}))
    expect(cleared.keepInbox).toBe(false)
  })

  it('edits and reorders queued messages by id, and forks a session', async () => {
    // Turn 1 is held at its first step while the queue is edited, whatever the machine's speed.
    const gate = stepGate()
    const { host: h, store } = makeHost(dir, () => [{ text: 'an answer' }], {}, [gate.plugin])
    hosts.push(h)
    stores.push(store)
    await req(h, 'POST', '/v1/sessions', { id: 's' })
    await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'run', content: 'go' })
    await waitFor(() => gate.waiting === 1, 15_000, 'turn 1 to reach its first step')
    for (const m of ['q1', 'q2', 'q3']) await req(h, 'POST', '/v1/sessions/s/messages', { clientMessageId: m, content: m })
    const edited = await req(h, 'PATCH', '/v1/sessions/s/inbox/q1', { content: 'q1 edited' })
    expect(edited.status).toBe(200)
    const afterEdit = (await json(edited)).inbox['next-turn'] as { id: string; content: { text: string }[] }[]
    expect(afterEdit.map((m) => m.id)).toEqual(['q1', 'q2', 'q3'])
    expect(afterEdit[0]!.content[0]!.text).toBe('q1 edited')
    expect((await json(req(h, 'PATCH', '/v1/sessions/s/inbox/run', { content: 'x' }))).error.code).toBe('queue-item-not-found')
    const reordered = await json(req(h, 'PUT', '/v1/sessions/s/inbox/order', { order: ['q3', 'q1', 'q2'] }))
    expect(reordered.inbox['next-turn'].map((m: { id: string }) => m.id)).toEqual(['q3', 'q1', 'q2'])
    const partial = await req(h, 'PUT', '/v1/sessions/s/inbox/order', { order: ['q1'] })
    expect((await json(partial)).error.code).toBe('invalid-request')
    const unknownOrder = await req(h, 'PUT', '/v1/sessions/s/inbox/order', { order: ['q1', 'q2', 'ghost'] })
    expect((await json(unknownOrder)).error.code).toBe('queue-item-not-found')
    gate.open()
    await idle(h, 's')
    // FIFO in the new order: q3, q1, q2 ran as turns 2, 3, 4.
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/q3'))).toMatchObject({ state: 'claimed', turn: 2 })
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/q1'))).toMatchObject({ state: 'claimed', turn: 3 })
    expect(await json(req(h, 'GET', '/v1/sessions/s/messages/q2'))).toMatchObject({ state: 'claimed', turn: 4 })

    const fork = await req(h, 'POST', '/v1/sessions/s/fork', { id: 'child', afterTurn: 1 })
    expect(fork.status).toBe(201)
    expect(await json(fork)).toMatchObject({ id: 'child', parent: 's' })
    const child = await json(req(h, 'GET', '/v1/sessions/child/events?limit=1000'))
    expect(child.events.length).toBeGreaterThan(0)
    expect((await req(h, 'POST', '/v1/sessions/s/fork', { id: 'child' })).status).toBe(409)
    expect((await json(req(h, 'POST', '/v1/sessions/s/fork', { afterTurn: 99 }))).error.code).toBe('invalid-request')
  })
})
