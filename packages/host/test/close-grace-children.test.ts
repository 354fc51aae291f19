// host.close({ graceMs }) while a session's background subagent child works and the session
// itself is idle (review R2). The host waited only for sessions that were running, so the idle
// parent was closed at once and its close aborted the child's turn (reason `closed`), which the
// parent settled as stopped. Now the child gets the grace: its turn finishes, and its answer is
// queued in the parent for the next host.
import { createAgent, findLiveAgent, type Agent } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { describe, expect, it } from 'vitest'
import { brain, childIds } from '../../plugins/subagents/test/harness.js'
import { createHost } from '../src/index.js'
import { perTest, req, waitFor } from './helpers.js'

const t = perTest()

describe('host.close({ graceMs }) with a background subagent child at work', () => {
  it("gives the child the grace though its parent is idle: the child's turn completes and its answer is queued in the parent", async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const wait = { name: 'wait', description: 'waits', parameters: { type: 'object' as const }, execute: async () => { await held; return 'waited' } }
    const store = jsonlStore({ dir: t.dir })
    t.closing.push(store)
    let root: Agent | undefined
    const host = createHost({
      store,
      agentFactory: async ({ sessionId, store }) => {
        const agent = await createAgent({
          model: brain({ research: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'dig', mode: 'background' } }] }, { text: 'started it' }], dig: [{ toolCalls: [{ name: 'wait', args: {} }] }, { text: 'dug it up' }] }),
          store, sessionId, plugins: [[subagents, {}]], tools: [wait],
        })
        // The child's tool is let go once the host's close has begun waiting (session-close.ts):
        // its turn can only end inside the grace, however fast or slow the machine.
        const stopAfterTurn = agent.stopAfterTurn.bind(agent)
        agent.stopAfterTurn = () => {
          const stopped = stopAfterTurn()
          release()
          return stopped
        }
        root = agent
        return agent
      },
    })
    t.closing.push(host)
    expect((await req(host, 'POST', '/v1/sessions', { id: 'root' })).status).toBe(201)
    expect((await req(host, 'POST', '/v1/sessions/root/messages', { content: 'research', clientMessageId: 'r' })).status).toBe(202)
    await waitFor(() => root !== undefined && childIds(root.session.events).length === 1 && root.status === 'idle', 15_000, 'the parent idle, its child spawned')
    const child = findLiveAgent(store, childIds(root!.session.events)[0]!)!
    await waitFor(() => child.session.events.some((event) => event.type === 'tool/call'), 15_000, 'the child waiting in its tool')

    await host.close({ graceMs: 600_000 })
    expect(child.session.events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)).toEqual([{ kind: 'completed' }])
    const settled = root!.session.events.filter((e) => e.type === 'subagent/settled').map((e) => e.data as { answer: string; reason: string })
    expect(settled).toMatchObject([{ answer: 'dug it up', reason: 'completed' }])
    expect(root!.session.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    expect(root!.inbox.nextTurn.map((message) => message.id)).toEqual([expect.stringMatching(/^settle:/)])
  })
})
