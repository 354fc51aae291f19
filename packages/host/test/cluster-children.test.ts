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
import { available, useCluster } from './cluster-helpers.js'
import { firstUserText, lastUserText } from './children-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — a subagent child', () => {
  const cluster = useCluster()

  it("a cold child asked for on a host that does not hold its parent is opened by the parent's owner, with its profile", async () => {
    const seen: string[] = []
    const researcher = scripted({
      responses: Array.from({ length: 10 }, () => (request: ModelRequest): ScriptedResponse => {
        seen.push(`${request.system}|${lastUserText(request)}`)
        return { text: `researched: ${lastUserText(request)}` }
      }),
    })
    const parentTurns: ScriptedResponse[] = [{ toolCalls: [{ name: 'spawn_agent', id: 'fg', args: { task: 'research', agent: 'researcher' } }] }, { text: 'got it' }]
    const route = (request: ModelRequest): ScriptedResponse =>
      (firstUserText(request) === 'plan' ? parentTurns[request.messages.filter((m) => m.role === 'assistant').length] : undefined) ?? { text: 'noted' }
    const agentFactory = ({ sessionId, store }: { sessionId: string; store: import('@bosun/core').Store }) => createAgent({
      model: scripted({ responses: Array.from({ length: 20 }, () => route) }), system: 'You plan.', store, sessionId,
      plugins: [[subagents, { agents: { researcher: { system: 'You research.', model: { adapter: researcher } } } }]],
    })
    const [a, b] = cluster.hosts(2, { host: { agentFactory } })
    expect((await req(a!.host, 'POST', '/v1/sessions', { id: 'root' })).status).toBe(201)
    expect((await req(a!.host, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan' })).status).toBe(202)
    const events = async (id: string) => (await json(req(a!.host, 'GET', `/v1/sessions/${id}/events?limit=1000`))).events as { type: string; data: any }[]
    await waitFor(async () => (await events('root')).some((e) => e.type === 'turn/end'), 30_000, "the parent's turn")
    const child = (await events('root')).find((e) => e.type === 'subagent/spawned')!.data.childId as string
    // The one-shot child answered and was closed: host A holds the parent's lease, nobody the child's.
    await waitFor(async () => (await a!.store.leaseHolder(child)) === undefined || (await a!.store.leaseHolder(child))!.expiresInMs <= 0, 30_000, 'the child to be closed')

    const sent = await req(b!.host, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'asked on b' })
    expect(sent.status).toBe(202)
    // Carried out by A, the parent's owner: the child runs on the profile and settles in the parent.
    await waitFor(async () => (await events('root')).filter((e) => e.type === 'subagent/settled').length === 2, 30_000, "the user's turn to settle in the parent")
    expect(seen).toEqual(['You research.|research', 'You research.|asked on b'])
    // B took nothing. The mail woke B too, and B tried to take the cold child (the first host to
    // take a cold session's lease carries out its mail) and lost: opening it means opening its
    // parent, which A holds. On a loaded machine that attempt can still be under way now, listed
    // in liveIds() while it runs, so it is waited out: a B that kept the child would hold it
    // until its idleMs (minutes). The parent's lease never moved (each take raises the epoch: it
    // is still A's first), and A took the child's last.
    await waitFor(() => b!.host.sessions.liveIds().length === 0, 30_000, "host B to hold no session (its attempt at the cold child to end)")
    expect(await a!.store.leaseHolder('root')).toMatchObject({ owner: 'host-a', epoch: '1' })
    expect(await a!.store.leaseHolder(child)).toMatchObject({ owner: 'host-a' })
  }, 60_000)
})
