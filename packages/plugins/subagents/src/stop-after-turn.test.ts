// A host going away within a grace calls the parent's stopAfterTurn() (host.close({ graceMs })):
// a background child still working while its parent is idle finishes its turn inside the grace
// instead of being aborted by the parent's close (reason `closed`, settled as stopped).
import { createAgent, findLiveAgent, memoryStore } from '@bosun/core'
import { describe, expect, it } from 'vitest'
import { brain, childIds, gate, ofType, until } from '../test/harness.js'
import subagents from './index.js'

const waitTool = (hold: { promise: Promise<void> }) => ({ name: 'wait', description: 'waits', parameters: { type: 'object' as const }, execute: async () => { await hold.promise; return 'waited' } })

describe("the parent's stopAfterTurn()", () => {
  it('waits for a running background child to finish its turn, which settles into the parent without starting a turn there', async () => {
    const hold = gate()
    const store = memoryStore()
    const root = await createAgent({
      model: brain({
        research: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'dig', mode: 'background' } }] }, { text: 'started it' }],
        dig: [{ toolCalls: [{ name: 'wait', args: {} }] }, { text: 'dug it up' }],
      }),
      store,
      sessionId: 'root',
      plugins: [[subagents, {}]],
      tools: [waitTool(hold)],
    })
    root.followup('research')
    await until(() => childIds(root.session.events).length === 1 && root.status === 'idle', 'the parent idle, its child spawned')
    const child = findLiveAgent(store, childIds(root.session.events)[0]!)!
    await until(() => child.status === 'running', 'the child running')

    let stopped = false
    const stopping = root.stopAfterTurn().then(() => { stopped = true })
    // Resolved only once the child is idle: not while its tool still holds its turn.
    await until(() => child.session.events.some((event) => event.type === 'tool/call'), 'the child waiting in its tool')
    await Promise.resolve()
    expect(stopped).toBe(false)
    hold.open()
    await stopping

    expect(ofType(child.session.events, 'turn/end').map((event) => (event.data as { reason: unknown }).reason)).toEqual([{ kind: 'completed' }])
    // The settlement reached the parent as a queued message; the stopped parent started no turn for it.
    const settled = ofType(root.session.events, 'subagent/settled').map((event) => event.data as { answer: string; reason: string })
    expect(settled).toMatchObject([{ answer: 'dug it up', reason: 'completed' }])
    expect(ofType(root.session.events, 'turn/start')).toHaveLength(1)
    expect(root.inbox.nextTurn.map((message) => message.id)).toEqual([expect.stringMatching(/^settle:/)])
    await root.close()

    // Whoever resumes the parent owes it that turn.
    const resumed = await createAgent({ model: brain({}), store, sessionId: 'root', plugins: [[subagents, {}]], tools: [waitTool(hold)] })
    expect(resumed.recovery.waiting).toEqual([expect.stringMatching(/^settle:/)])
    await resumed.close()
  })
})
