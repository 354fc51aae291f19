// The host stream (GET /v1/stream) and the subagent children a session spawns: a session list fed
// by it learns of each child — `session.added`, then its status as it runs and settles — without
// any client asking about the child (found building an app against the host, V4: the stream said
// nothing of a child until something requested it, and nothing at all of a foreground child).
// Real HTTP on 127.0.0.1, JSONL files, the scripted model, the typed client.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, type ModelRequest } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { createClient, type HostStreamFrame } from '../src/client.js'
import { firstUserText, followHostStream, taskGate } from './children-helpers.js'
import { tempDir } from './helpers.js'

/** Each conversation is scripted by its first message; the n-th answer by the assistant messages so far. */
const script: Record<string, ScriptedResponse[]> = {
  delegate: [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }, { name: 'spawn_agent', id: 'fg', args: { task: 'check' } }] }, { text: 'delegated' }],
  research: [{ toolCalls: [{ name: 'spawn_agent', id: 'gc', args: { task: 'dig' } }] }, { text: 'found it' }],
  check: [{ text: 'checked' }],
  dig: [{ text: 'dug' }],
}
const route = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }

let dir: string
let cleanup: () => Promise<void>
let host: Host | undefined
let server: RunningServer | undefined
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof jsonlStore> | undefined
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  await server?.close()
  await host?.close()
  await store?.close()
  server = host = store = undefined
  await cleanup()
})

describe('host stream: subagent children', () => {
  it('announces every child a session spawns (and theirs), with its parent, and follows its status to the end — no request to a child', { timeout: 30_000 }, async () => {
    const gate = taskGate(new Set(['research']))
    store = jsonlStore({ dir })
    host = createHost({
      store,
      agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 20 }, () => route) }), store, sessionId, plugins: [subagents, gate.plugin] }),
    })
    server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    const client = createClient({ baseUrl: server.url })
    await client.createSession('lead')

    const { frames, until, stop } = followHostStream((options) => client.hostStream(options))
    await until((all) => all.some((f) => f.event === 'hello'))
    await client.send('lead', { content: 'delegate' })

    const statusOf = (all: HostStreamFrame[], id: string) => all.filter((f) => f.event === 'session.status' && f.data.id === id).map((f) => f.data as { status: string; parentSessionId?: string; loaded: boolean })
    const added = (all: HostStreamFrame[]) => all.filter((f) => f.event === 'session.added').map((f) => (f.data as { id: string }).id)
    // The background child (held at its first step) and its foreground sibling are announced while
    // the background one works, as running under its parent.
    await until((all) => added(all).length >= 2)
    const children = await client.children('lead')
    expect(children).toHaveLength(2)
    for (const child of children) expect(added(frames)).toContain(child.id)
    const background = children.find((c) => c.delegation.mode === 'continuable')!
    const foreground = children.find((c) => c.delegation.mode === 'one-shot')!
    await until((all) => statusOf(all, background.id).some((s) => s.status === 'running') && statusOf(all, foreground.id).some((s) => s.status === 'idle' && !s.loaded))
    expect(statusOf(frames, background.id).at(-1)).toMatchObject({ status: 'running', parentSessionId: 'lead', loaded: true })
    expect([...statusOf(frames, background.id), ...statusOf(frames, foreground.id)].every((s) => s.parentSessionId === 'lead')).toBe(true)

    // Let the background child run: it spawns a grandchild, which is announced under it, and it ends idle.
    gate.open()
    await until((all) => {
      const grandchild = added(all).find((id) => statusOf(all, id).some((s) => s.parentSessionId === background.id))
      return grandchild !== undefined && statusOf(all, grandchild).at(-1)?.status === 'idle' && statusOf(all, background.id).at(-1)?.status === 'idle'
    })
    stop()
    // No client asked about any child: the host opened none of them for the stream.
    expect(await client.children(background.id)).toHaveLength(1)
  })
})
