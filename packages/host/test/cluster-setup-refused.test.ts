// On a cluster, the AI SDK chat routes first look whether another host owns the session, which
// opens it here when none does — building its agent, so running its plugin setups. When those
// refuse the config, that refusal is the route's answer: the host's own chat route does not open
// the session (and run the setups) a second time. Real PostgreSQL, hosts served on 127.0.0.1, a
// plugin whose setup counts its calls and refuses once told to.
import { describe, expect, it } from 'vitest'
import { available, refusingPlugin, useCluster, useServers } from './cluster-helpers.js'

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })

describe.skipIf(!available)('host cluster on PostgreSQL — a config its plugin setups refuse', () => {
  const cluster = useCluster()
  const serve = useServers()
  const post = (url: string, path: string, body: unknown): Promise<Response> =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

  it('the chat POST for a new id sets the plugins up once and answers their refusal', { timeout: 60_000 }, async () => {
    const { plugin, state } = refusingPlugin()
    const [a] = cluster.hosts(1, { plugins: () => [plugin] })
    const onA = await serve(a!)
    const response = await post(onA, '/v1/ai-sdk/chat', chat('refused', 'm-1', 'hello'))
    const body = (await response.json()) as { error: { code: string; message: string } }
    // What one host answers a setup that throws (the host's log has the plugin's error).
    expect({ status: response.status, code: body.error.code }).toEqual({ status: 500, code: 'internal-error' })
    expect(state.setups).toBe(1)
    expect(await a!.store.list()).toEqual([])
  })

  it('the chat POST and resume for a stored session no host holds set the plugins up once each', { timeout: 60_000 }, async () => {
    const { plugin, state } = refusingPlugin()
    const [a, b] = cluster.hosts(2, { plugins: () => [plugin] })
    state.refusing = false
    expect((await post(await serve(a!), '/v1/sessions', { id: 'stored' })).status).toBe(201)
    // A clean shutdown releases its leases: the session is cold, B opens it for a request.
    await a!.host.close()
    state.refusing = true
    state.setups = 0
    const onB = await serve(b!)

    const response = await post(onB, '/v1/ai-sdk/chat', chat('stored', 'm-1', 'hello'))
    const body = (await response.json()) as { error: { code: string; message: string } }
    // What one host answers a setup that throws (the host's log has the plugin's error).
    expect({ status: response.status, code: body.error.code }).toEqual({ status: 500, code: 'internal-error' })
    expect(state.setups).toBe(1)

    const resumed = await fetch(`${onB}/v1/ai-sdk/chat/stored/stream`)
    const resumedBody = (await resumed.json()) as { error: { code: string; message: string } }
    expect({ status: resumed.status, body: resumedBody }).toEqual({ status: response.status, body })
    expect(state.setups).toBe(2)
  })
})
