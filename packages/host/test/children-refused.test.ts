// A subagent child whose plugin setup refuses is never made (createAgent stages it like any new
// session): the host lists only the children that were made, announces only those on its stream,
// and a message to the refused child's id finds no session — before, its empty session was listed
// under the parent and a message to it ran a turn there on the host's own config.
// Real HTTP on 127.0.0.1, JSONL files, the scripted model, the typed client.
import { describe, expect, it } from 'vitest'
import { createAgent, definePlugin, type ModelRequest } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen } from '../src/index.js'
import { createClient } from '../src/client.js'
import { call, firstUserText, followHostStream } from './children-helpers.js'
import { perTest, waitFor } from './helpers.js'

/** The lead spawns a child (refused), then another (made), one step each. */
const script: Record<string, ScriptedResponse[]> = {
  delegate: [
    { toolCalls: [{ name: 'spawn_agent', id: 'first', args: { task: 'refused' } }] },
    { toolCalls: [{ name: 'spawn_agent', id: 'second', args: { task: 'made', mode: 'background' } }] },
    { text: 'delegated' },
  ],
  made: [{ text: 'done it' }],
}
const route = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }

/** Refuses the first child agent built (as a plugin whose service was down a moment would), then lets children be. */
function refusingFirstChild() {
  let refusals = 1
  return definePlugin({
    name: 'flaky-service',
    setup({ session }) {
      if (session.header.delegation && refusals-- > 0) throw new Error('the sandbox service is down')
    },
  })
}

const state = perTest()

describe('a refused subagent child, through the host', () => {
  it('is not listed or announced, and a message to its id finds no session; the child made after it is', { timeout: 30_000 }, async () => {
    const store = jsonlStore({ dir: state.dir })
    const flaky = refusingFirstChild()
    const host = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 20 }, () => route) }), store, sessionId, plugins: [subagents, flaky] }),
    })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    state.closing.push(store, host, server)
    const client = createClient({ baseUrl: server.url })
    await client.createSession('lead')
    const { frames, until, stop } = followHostStream((options) => client.hostStream(options))
    await until((all) => all.some((f) => f.event === 'hello'))

    await client.send('lead', { content: 'delegate' })
    const leadEvents = async () => (await call(server.url, 'GET', '/v1/sessions/lead/events?limit=1000')).body.events as { type: string; data: any }[]
    const settled = await waitFor(async () => {
      const events = await leadEvents()
      const done = events.filter((e) => e.type === 'subagent/settled')
      return done.length === 2 && events.at(-1)?.type === 'turn/end' ? done.map((e) => e.data) : undefined
    }, 20_000, 'both spawns to settle and the lead to end its turn')
    const [refused, made] = (await leadEvents()).filter((e) => e.type === 'subagent/spawned').map((e) => e.data.childId as string) as [string, string]
    // The parent's log says what happened to the refused one; the model got the setup's error.
    expect(settled[0]).toEqual({ childId: refused, epoch: 1, reason: 'error', answer: '' })
    const results = (await leadEvents()).filter((e) => e.type === 'tool/result').map((e) => e.data)
    expect(results[0]).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('the sandbox service is down') }] })

    // Only the child that was made is listed, under its parent and in the session list.
    expect((await client.children('lead')).map((child) => child.id)).toEqual([made])
    expect((await call(server.url, 'GET', '/v1/sessions')).body.sessions.map((s: { id: string }) => s.id).sort()).toEqual(['lead', made].sort())
    // The host stream announced the made child and never the refused one.
    await until((all) => all.some((f) => f.event === 'session.added' && f.data.id === made))
    expect(frames.filter((f) => f.event === 'session.added').map((f) => (f.data as { id: string }).id)).not.toContain(refused)
    stop()

    // Its id is no session: reading it and sending to it say so, and nothing is made by asking.
    expect((await call(server.url, 'GET', `/v1/sessions/${refused}`)).status).toBe(404)
    const sent = await call(server.url, 'POST', `/v1/sessions/${refused}/messages`, { clientMessageId: 'hello', content: 'are you there?' })
    expect(sent).toMatchObject({ status: 404, body: { error: { code: 'session-not-found' } } })
    expect(await store.has!(refused)).toBe(false)
  })
})
