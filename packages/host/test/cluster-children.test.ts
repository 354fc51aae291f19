// A subagent's child in a cluster (PostgreSQL, several hosts): the host that holds the parent's
// lease owns its children, so a request for a cold child on another host is relayed to the
// parent's owner, which opens the child through the parent (its profile; the parent hears of the
// user's turn) — instead of the other host building the child from its own config and taking its
// lease away from the parent. Real PostgreSQL, the scripted model.
import { describe, expect, it } from 'vitest'
import { createAgent, type ModelRequest } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import { json, req, waitFor } from './helpers.js'
import type { PostgresStore } from '@bosun/plugin-store-postgres'
import { available, useCluster } from './cluster-helpers.js'
import { firstUserText, lastUserText } from './children-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a subagent child', () => {
  const cluster = useCluster()

  /**
   * Hosts A and B on one schema; on A, a session "root" whose first turn spawned a one-shot
   * "researcher" child that answered and closed: A holds the root's lease, nobody the child's.
   * `builds` lists each agent a host built, as `<host>/<session>`.
   */
  async function parentAndColdChild(host: Partial<import('../src/index.js').CreateHostOptions> = {}) {
    const seen: string[] = []
    const builds: string[] = []
    const researcher = scripted({
      responses: Array.from({ length: 10 }, () => (request: ModelRequest): ScriptedResponse => {
        seen.push(`${request.system}|${lastUserText(request)}`)
        return { text: `researched: ${lastUserText(request)}` }
      }),
    })
    const parentTurns: ScriptedResponse[] = [{ toolCalls: [{ name: 'spawn_agent', id: 'fg', args: { task: 'research', agent: 'researcher' } }] }, { text: 'got it' }]
    const route = (request: ModelRequest): ScriptedResponse =>
      (firstUserText(request) === 'plan' ? parentTurns[request.messages.filter((m) => m.role === 'assistant').length] : undefined) ?? { text: 'noted' }
    const agentFactory = ({ sessionId, store }: { sessionId: string; store: import('@bosun/core').Store }) => {
      builds.push(`${(store as PostgresStore).owner}/${sessionId}`)
      return createAgent({
        model: scripted({ responses: Array.from({ length: 20 }, () => route) }), system: 'You plan.', store, sessionId,
        plugins: [[subagents, { agents: { researcher: { system: 'You research.', model: { adapter: researcher } } } }]],
      })
    }
    const hosts = cluster.hosts(2, { host: { agentFactory, ...host } })
    const [a, b] = hosts
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'root' })).status).toBe(201)
    expect((await req(a!.host, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan' })).status).toBe(202)
    const events = async (id: string) => (await json(req(a!.host, 'GET', `/v1/sessions/${id}/events?limit=1000`))).events as { type: string; data: any }[]
    await waitFor(async () => (await events('root')).some((e) => e.type === 'turn/end'), 30_000, "the parent's turn")
    const child = (await events('root')).find((e) => e.type === 'subagent/spawned')!.data.childId as string
    await waitFor(async () => (await a!.store.leaseHolder(child)) === undefined || (await a!.store.leaseHolder(child))!.expiresInMs <= 0, 30_000, 'the child to be closed')
    return { a: a!, b: b!, schema: hosts.schema, child, seen, builds, events }
  }

  it("a cold child asked for on a host that does not hold its parent is opened by the parent's owner, with its profile", async () => {
    const { a, b, child, seen, builds, events } = await parentAndColdChild()
    const sent = await req(b.host, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'asked on b' })
    expect(sent.status).toBe(202)
    // Carried out by A, the parent's owner: the child runs on the profile and settles in the parent.
    await waitFor(async () => (await events('root')).filter((e) => e.type === 'subagent/settled').length === 2, 30_000, "the user's turn to settle in the parent")
    expect(seen).toEqual(['You research.|research', 'You research.|asked on b'])
    // B took nothing. The mail woke B too; B saw in one query that A holds the child's parent (a
    // child is opened through its parent), so it neither opened the child nor built the parent —
    // nor did the request it relayed. On a loaded machine B's check may still be under way now:
    // it is waited out (a B that kept the child would hold it until its idleMs, minutes). The
    // parent's lease never moved (each take raises the epoch: it is still A's first), and A took
    // the child's last.
    await waitFor(() => b.host.sessions.liveIds().length === 0, 30_000, "host B to hold no session (its check of the cold child to end)")
    expect(builds.filter((built) => built.startsWith('host-b/'))).toEqual([])
    expect(await a.store.leaseHolder('root')).toMatchObject({ owner: 'host-a', epoch: '1' })
    expect(await a.store.leaseHolder(child)).toMatchObject({ owner: 'host-a' })
  }, 60_000)

  it("a wake-up for a cold child with mail, on a host that does not hold its parent, opens and builds nothing there; the parent's owner carries the mail out", async () => {
    // No polling during the test (wake-ups only as the test sends them) and mail written without
    // its NOTIFY: B's wake-up is the only one, so nothing A does can answer for B.
    const { a, b, schema, child, seen, builds, events } = await parentAndColdChild({ cluster: { relayWaitMs: 60_000, pollIntervalMs: 600_000 } })
    const relayed = { method: 'POST', path: `/v1/sessions/${child}/messages?wait=durable`, body: { clientMessageId: 'user-1', content: 'asked on b' } }
    await cluster.sql(`INSERT INTO "${schema}".session_mailbox (session_id, message_id, kind, body, admitted_by) VALUES ($1, 'user-1', 'message', $2, 'host-b')`, [child, JSON.stringify(relayed)])
    const before = builds.length

    await b.host.cluster!.drain(child)
    expect(builds.slice(before)).toEqual([])
    expect(b.host.sessions.liveIds()).toEqual([])
    expect(await a.store.leaseHolder('root')).toMatchObject({ owner: 'host-a', epoch: '1' })
    expect((await a.store.leaseHolder(child))?.owner).not.toBe('host-b')
    expect((await a.store.mailbox.get(child, 'user-1'))?.doneAt ?? null).toBeNull()

    // The mail is still there for the parent's owner: A's wake-up carries it out through the parent.
    await a.host.cluster!.drain(child)
    await waitFor(async () => (await events('root')).filter((e) => e.type === 'subagent/settled').length === 2, 30_000, "the user's turn to settle in the parent")
    expect(seen).toEqual(['You research.|research', 'You research.|asked on b'])
    expect(builds.filter((built) => built.startsWith('host-b/'))).toEqual([])
  }, 60_000)

  it('a wake-up for a cold session with no pending mail takes no lease', async () => {
    const [a, b] = cluster.hosts(2)
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'cold' })).status).toBe(201)
    // A's own wake-up for the session it just opened has ended (nothing to carry out); then A closes it.
    await a!.host.cluster!.drain('cold')
    await a!.host.sessions.drop('cold')
    await waitFor(async () => ((await a!.store.leaseHolder('cold'))?.expiresInMs ?? 0) <= 0, 30_000, "A to release the session's lease")

    // As a NOTIFY that arrives after the mail was delivered, or a poll that read it just before.
    await b!.host.cluster!.drain('cold')
    expect(b!.host.sessions.liveIds()).toEqual([])
    // Still A's released lease (a take by B would make it B's, at a new epoch).
    const holder = await b!.store.leaseHolder('cold')
    expect(holder).toMatchObject({ owner: 'host-a', epoch: '1' })
    expect(holder!.expiresInMs).toBeLessThanOrEqual(0)
  }, 60_000)
})
