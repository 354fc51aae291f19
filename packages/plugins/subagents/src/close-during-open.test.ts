// Closing a parent while one of its children is still being built: the child's build is given up
// (its createAgent's signal), so a child plugin's setup that never settles holds neither the
// parent's close nor the child's session.
import { describe, expect, it } from 'vitest'
import { definePlugin, findLiveAgent, memoryStore, type PluginEntry } from '@bosun/core'
import subagents from './index.js'
import { childIds, parent, until } from '../test/harness.js'

/** Never finishes setting up inside a child; notes the abort it is told of. */
function hangInChild() {
  const seen = { started: 0, aborted: 0 }
  const plugin = definePlugin({
    name: 'hang-in-child',
    setup({ session, signal }) {
      if (!session.header.delegation) return
      seen.started++
      signal.addEventListener('abort', () => seen.aborted++, { once: true })
      return new Promise<void>(() => {})
    },
  })
  return { plugin, seen }
}

describe('closing a parent while a child is being built', () => {
  it.each(['background', 'foreground'] as const)('%s spawn: the child build is aborted, the parent closes, the child is not left open', async (mode) => {
    const { plugin, seen } = hangInChild()
    const plugins: PluginEntry[] = [[subagents, {}], plugin]
    const store = memoryStore()
    const root = await parent({
      store,
      script: { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'dig', mode } }] }, { text: 'waiting' }] },
      plugins,
    })
    root.followup('go')
    await until(() => seen.started === 1, "the child's setup to start")
    // Without the abort the close waits for the child's build, which never ends.
    await root.close()
    expect(seen.aborted).toBe(1)
    // The spawn is on the parent's log; the child whose build was given up is not live, nor is the parent.
    const [childId] = childIds(root.session.events)
    expect(childId).toBeDefined()
    expect(findLiveAgent(store, childId!)).toBeUndefined()
    expect(findLiveAgent(store, 'root')).toBeUndefined()
  })
})
