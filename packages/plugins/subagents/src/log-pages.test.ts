import { types } from 'node:util'
import { describe, expect, it } from 'vitest'
import { findLiveAgent, memoryStore, sealIdleSessions } from '@bosun/core'
import { childIds, ofType, parent, until } from '../test/harness.js'

// `createAgent({ logPages: false })` must reach the child
// agents this plugin builds (child-agent.ts calls createAgent without it, and the parent's
// AgentConfig has no such field), so a child runs with sealing on — with the very plugins
// (config.plugins) the parent turned sealing off for. A session is sealed when its `events` has
// become the read-only view (a Proxy).

describe('logPages: false reaches the children', () => {
  it('a parent made with logPages: false has its children sealed neither', async () => {
    const store = memoryStore()
    const root = await parent({
      store,
      logPages: false,
      script: {
        research: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'dig', mode: 'background' } }] }, { text: 'waiting' }],
        dig: [{ toolCalls: [{ name: 'report', args: { content: 'found gold' } }] }, { text: 'bye' }],
      },
    })
    root.followup('research')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    await root.whenIdle()
    const [childId] = childIds(root.session.events)
    const child = findLiveAgent(store, childId!)
    expect(child).toBeDefined() // still open: the parent keeps a background child
    await child!.whenIdle()

    await sealIdleSessions()

    expect(types.isProxy(root.session.events)).toBe(false) // the parent: not sealed, as asked
    // Before the fix: the child's log was sealed (its events is the read-only view).
    expect(types.isProxy(child!.session.events)).toBe(false)
    await root.close()
  })
})
