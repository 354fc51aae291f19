// A parent the host opened only to reach its child (a child opened cold through its parent) is
// not retired while the host still uses that child — a stream on it, or a request within idleMs:
// closing the parent closes the child, which would end the user's stream and drop the child the
// user is talking to. Real HTTP on 127.0.0.1, the memory store, the scripted model.
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, memoryStore, type ModelRequest, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { call, childOf, events, firstUserText, idle, ofType } from './children-helpers.js'
import { SseReader, waitFor } from './helpers.js'

const script: Record<string, ScriptedResponse[]> = {
  'plan-bg': [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }],
}
const route = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'noted' }

const servers: RunningServer[] = []
const hosts: Host[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const host of hosts.splice(0)) await host.close()
})

async function start(store: Store, idleMs?: number): Promise<{ host: Host; url: string }> {
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 50 }, () => route) }), store, sessionId, plugins: [subagents] }),
    limits: { keepAliveMs: 200, ...(idleMs === undefined ? {} : { idleMs }) },
  })
  hosts.push(host)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  servers.push(server)
  return { host, url: server.url }
}

describe('a parent opened to reach its child', () => {
  it('stays open while the host holds the child (a stream on it), and is retired once the child is let go', async () => {
    const store = memoryStore()
    const first = await start(store)
    await call(first.url, 'POST', '/v1/sessions', { id: 'root' })
    await call(first.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-bg' })
    const child = await childOf(first.url, 'root')
    await waitFor(async () => ofType(await events(first.url, 'root'), 'subagent/settled').length === 1 && (await idle(first.url, 'root')), 15_000, 'the first settlement')
    await servers.pop()!.close()
    await hosts.pop()!.close()

    const { host, url } = await start(store, 300)
    // The user writes to the child (the host opens the parent for it) and watches it.
    expect((await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'a question' })).status).toBe(202)
    const stream = new SseReader(await fetch(`${url}/v1/sessions/${child}/stream`))
    await stream.until((frames) => frames.some((f) => f.event === 'hello'))
    await waitFor(async () => ofType(await events(url, 'root'), 'subagent/settled').length === 2 && (await idle(url, 'root')) && (await idle(url, child)), 15_000, "the user's turn to settle")
    // A session made now is retired idleMs from now: after the parent's idle period, armed earlier, ran out.
    await call(url, 'POST', '/v1/sessions', { id: 'later' })
    await waitFor(() => !host.sessions.liveIds().includes('later'), 15_000, 'a later session to retire')
    expect(host.sessions.liveIds()).toEqual(expect.arrayContaining(['root', child]))
    expect(stream.done).toBe(false)
    expect((await host.sessions.peek(child))?.closed).toBeUndefined()

    // Let go of the child: it is retired, and its parent after it.
    await stream.cancel()
    await waitFor(() => !host.sessions.liveIds().includes('root') && !host.sessions.liveIds().includes(child), 15_000, 'the parent and child to retire')
  })
})
