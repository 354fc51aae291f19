import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, findLiveAgent, type ModelRequest, type SessionEvent, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, type Host } from '../src/index.js'
import { createClient } from '../src/client.js'
import { json, req, tempDir, waitFor } from './helpers.js'

const firstUserText = (request: ModelRequest): string => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? first.content.map((b) => ('text' in b ? b.text : '')).join('') : ''
}

/** Each conversation is scripted by its first message: the root spawns a background and a foreground child; the foreground one spawns a grandchild. */
const script: Record<string, ScriptedResponse[]> = {
  plan: [
    { toolCalls: [{ name: 'spawn_agent', id: 's1', args: { task: 'dig', mode: 'background' } }] },
    { toolCalls: [{ name: 'spawn_agent', id: 's2', args: { task: 'check' } }] },
    { text: 'waiting' },
  ],
  dig: [{ text: 'dug' }],
  check: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'leaf' } }] }, { text: 'checked' }],
  leaf: [{ text: 'leaf answer' }],
}
const route = (request: ModelRequest): ScriptedResponse =>
  script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }

let dir: string
let cleanup: () => Promise<void>
let host: Host
let store: Store
let bg: string
let fg: string
let leaf: string

const spawned = (events: readonly SessionEvent[]): string[] => events.filter((e) => e.type === 'subagent/spawned').map((e) => (e.data as { childId: string }).childId)

beforeAll(async () => {
  ;({ dir, cleanup } = await tempDir())
  store = jsonlStore({ dir })
  host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 100 }, () => route) }), store, sessionId, plugins: [subagents] }),
    limits: { keepAliveMs: 200 },
  })
  await req(host, 'POST', '/v1/sessions', { id: 'root' })
  await req(host, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'plan', content: 'plan' })
  const events = async (id: string): Promise<SessionEvent[]> => (await json(req(host, 'GET', `/v1/sessions/${id}/events?limit=1000`))).events
  await waitFor(async () => {
    const root = await json(req(host, 'GET', '/v1/sessions/root'))
    return root.status === 'idle' && root.inbox['next-turn'].length === 0 && (await events('root')).filter((e) => e.type === 'subagent/settled').length === 2
  }, 30_000, 'both children to settle')
  ;[bg, fg] = spawned(await events('root')) as [string, string]
  ;[leaf] = spawned(await events(fg)) as [string]
})
afterAll(async () => {
  await host.close()
  // Else its journal file stays open until the garbage collector closes it.
  await store.close()
  await cleanup()
})

describe('GET /v1/sessions/:id/children', () => {
  it("lists a parent's child sessions with their delegation and status, without resuming any", async () => {
    const { children } = await json(req(host, 'GET', '/v1/sessions/root/children'))
    expect(children.map((c: { id: string }) => c.id).sort()).toEqual([bg, fg].sort())
    const byId = new Map(children.map((c: { id: string }) => [c.id, c]))
    // The continuable child stays open in its parent's plugin: it is summarised from that live
    // agent (loaded, its log's true end), not from the store, whose copy lags the write-behind.
    const liveBg = findLiveAgent(store, bg)!
    expect(liveBg).toBeDefined()
    expect(byId.get(bg)).toMatchObject({ parentSessionId: 'root', status: 'idle', loaded: true, lastSeq: liveBg.session.length - 1, delegation: { parentSessionId: 'root', callId: 's1', depth: 1, mode: 'continuable' } })
    expect(byId.get(fg)).toMatchObject({ parentSessionId: 'root', delegation: { callId: 's2', depth: 1, mode: 'one-shot' } })
    for (const child of children) {
      expect(child.lastSeq).toBeGreaterThan(0)
      expect(child.queue).toEqual({ 'next-turn': 0, 'next-step': 0 })
    }
    // A grandchild belongs to its own parent, not to the root.
    expect((await json(req(host, 'GET', `/v1/sessions/${fg}/children`))).children).toMatchObject([{ id: leaf, parentSessionId: fg, delegation: { depth: 2 } }])
    expect((await json(req(host, 'GET', `/v1/sessions/${leaf}/children`))).children).toEqual([])
    // Listing children resumed none of them: only the root (driven through the host) is live.
    expect(host.sessions.liveIds()).toEqual(['root'])
  })

  it('names the parent in the session list, answers 404 for an unknown parent, and is in the typed client', async () => {
    const list = (await json(req(host, 'GET', '/v1/sessions'))).sessions as { id: string; parentSessionId?: string }[]
    expect(list.find((s) => s.id === 'root')!.parentSessionId).toBeUndefined()
    expect(list.find((s) => s.id === leaf)!.parentSessionId).toBe(fg)
    const missing = await req(host, 'GET', '/v1/sessions/ghost/children')
    expect(missing.status).toBe(404)
    expect((await json(missing)).error.code).toBe('session-not-found')
    const client = createClient({ baseUrl: 'http://127.0.0.1', fetch: (url, init) => host.fetch(new Request(url, init)) })
    const children = await client.children(fg)
    expect(children.map((c) => [c.id, c.delegation.depth])).toEqual([[leaf, 2]])
  })
})
