// The first chat for a new session id reaching two hosts of a cluster at once: each host finds no
// such session and builds a new agent, whose plugin setups run before the session is created in
// the store (core createAgent), so the slower host's create is refused (SESSION_EXISTS). A route
// that opens or creates (the AI SDK chat) must then behave as if the session had existed when it
// looked: the session is another host's, so its message is relayed to that owner — not answered
// 409 "choose another id". An explicit create racing still gets 409 session-exists. Real
// PostgreSQL, two hosts served on 127.0.0.1, a plugin whose setup waits on a gate the test opens
// once both hosts are in it (the race window, held open without sleeps).
import { afterEach, describe, expect, it } from 'vitest'
import { listen, type RunningServer } from '../src/index.js'
import { waitFor } from './helpers.js'
import { setupGate } from './setup-gate.js'
import { admissionsOf, answeredTurns, available, useCluster, type ClusterHost } from './cluster-helpers.js'

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })

describe.skipIf(!available)('host cluster on PostgreSQL — two hosts racing to create the same new session', () => {
  const cluster = useCluster()
  const servers: RunningServer[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
  })

  const serve = async (h: ClusterHost): Promise<string> => {
    const server = await listen(h.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    servers.push(server)
    return server.url
  }
  const post = (url: string, path: string, body: unknown): Promise<Response> =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  /** A chat answer read to its end: its status, and its text when it streamed. */
  const answerOf = async (response: Response): Promise<{ status: number; text: string; body: string }> => {
    const body = await response.text()
    const text = body.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: string })
      .filter((c) => c.type === 'text-delta').map((c) => c.delta).join('')
    return { status: response.status, text, body }
  }

  it('the first chat on both hosts: both answered, one session, each message admitted and answered once', { timeout: 90_000 }, async () => {
    const gate = setupGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    const [onA, onB] = [await serve(a!), await serve(b!)]

    const fromA = post(onA, '/v1/ai-sdk/chat', chat('fresh', 'm-a', 'hello from a'))
    const fromB = post(onB, '/v1/ai-sdk/chat', chat('fresh', 'm-b', 'hello from b'))
    // Both hosts are building a new agent for the id: neither has created it in the store yet.
    await waitFor(() => gate.entered === 2, 30_000, 'both hosts in the plugin setup')
    expect(await a!.store.list()).toEqual([])
    gate.open()

    const [answerA, answerB] = await Promise.all([fromA.then(answerOf), fromB.then(answerOf)])
    expect(answerA.status, answerA.body).toBe(200)
    expect(answerB.status, answerB.body).toBe(200)
    // The scripted model echoes: each answer is its own message's turn, wherever the session runs.
    expect(answerA.text).toContain('hello from a')
    expect(answerB.text).toContain('hello from b')

    expect((await a!.store.list()).map((s) => s.id)).toEqual(['fresh'])
    const owner = (await a!.store.leaseHolder('fresh'))!.owner
    const live = owner === 'host-a' ? a! : b!
    await (await live.host.sessions.peek('fresh'))!.agent.session.flush()
    const { events } = (await a!.store.read('fresh'))!
    for (const id of ['m-a', 'm-b']) {
      expect(admissionsOf(events, id), `admissions of ${id}`).toBe(1)
      expect(answeredTurns(events, id), `turns answering ${id}`).toBe(1)
    }
    // The loser holds nothing: the session runs on its owner alone.
    const loser = live === a ? b! : a!
    expect(await loser.host.sessions.peek('fresh')).toBeUndefined()
  })

  it('a retry of the loser\'s message (same id) is admitted once', { timeout: 90_000 }, async () => {
    const gate = setupGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    const [onA, onB] = [await serve(a!), await serve(b!)]

    const first = [post(onA, '/v1/ai-sdk/chat', chat('again', 'm-1', 'one')), post(onB, '/v1/ai-sdk/chat', chat('again', 'm-2', 'two'))]
    await waitFor(() => gate.entered === 2, 30_000, 'both hosts in the plugin setup')
    gate.open()
    for (const answer of await Promise.all(first.map((p) => p.then(answerOf)))) expect(answer.status, answer.body).toBe(200)
    // The client did not see its answer and sends each message again, to the other host.
    const retried = await Promise.all([post(onB, '/v1/ai-sdk/chat', chat('again', 'm-1', 'one')), post(onA, '/v1/ai-sdk/chat', chat('again', 'm-2', 'two'))].map((p) => p.then(answerOf)))
    for (const answer of retried) expect(answer.status, answer.body).toBe(200)

    const owner = (await a!.store.leaseHolder('again'))!.owner
    await (await (owner === 'host-a' ? a! : b!).host.sessions.peek('again'))!.agent.session.flush()
    const { events } = (await a!.store.read('again'))!
    for (const id of ['m-1', 'm-2']) expect(admissionsOf(events, id), `admissions of ${id}`).toBe(1)
  })

  it('an explicit create racing still answers the loser 409 session-exists', { timeout: 90_000 }, async () => {
    const gate = setupGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    const [onA, onB] = [await serve(a!), await serve(b!)]

    const created = [post(onA, '/v1/sessions', { id: 'taken' }), post(onB, '/v1/sessions', { id: 'taken' })]
    await waitFor(() => gate.entered === 2, 30_000, 'both hosts in the plugin setup')
    gate.open()
    const answers = await Promise.all(created.map(async (p) => { const r = await p; return { status: r.status, body: await r.json() as any } }))
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409])
    expect(answers.find((r) => r.status === 409)!.body).toMatchObject({ error: { code: 'session-exists', details: { id: 'taken' } } })
    expect((await a!.store.list()).map((s) => s.id)).toEqual(['taken'])
  })

  it('on one host, two first chats for the same new id share one create', { timeout: 90_000 }, async () => {
    const gate = setupGate()
    const [a] = cluster.hosts(1, { plugins: () => [gate.plugin] })
    const onA = await serve(a!)

    const both = [post(onA, '/v1/ai-sdk/chat', chat('shared', 's-1', 'first')), post(onA, '/v1/ai-sdk/chat', chat('shared', 's-2', 'second'))]
    await waitFor(() => gate.entered === 1, 30_000, 'the host in the plugin setup')
    gate.open()
    for (const answer of await Promise.all(both.map((p) => p.then(answerOf)))) expect(answer.status, answer.body).toBe(200)
    // One agent was built for both requests: the second waited for the first one's open.
    expect(gate.entered).toBe(1)
    await (await a!.host.sessions.peek('shared'))!.agent.session.flush()
    const { events } = (await a!.store.read('shared'))!
    for (const id of ['s-1', 's-2']) expect(admissionsOf(events, id), `admissions of ${id}`).toBe(1)
  })
})
