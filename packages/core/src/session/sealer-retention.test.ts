import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it, vi } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { memoryStore } from '../store/memory.js'
import { sealIdleSessions } from './sealer.js'

// Sealing an idle session's log lets its past events go (they live on as deflated pages): nothing
// the agent keeps for its life may still hold them. createAgent kept the stored session it opened
// (and with it the log array as the store gave it) in a closure sharing its context with the
// session's error callback, so a resumed agent's events stayed on the heap after sealing: 68 KB
// per idle session of figure 6 instead of 13 (docs/benchmarks.md, figure 6).

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Writes a session of `turns` short turns to `store`, through an agent closed afterwards. */
async function storedTurns(store: ReturnType<typeof memoryStore>, id: string, turns: number): Promise<void> {
  const writer = await createAgent({ model: scripted({ responses: Array.from({ length: turns }, (_, i) => ({ text: `answer ${i}` })) }), store, sessionId: id })
  for (let i = 0; i < turns; i++) {
    writer.followup(`question ${i}`)
    await writer.whenIdle()
  }
  await writer.close()
}

describe('a resumed, idle, sealed session', () => {
  it('keeps none of its past events alive but the last: they can be collected once sealed', async () => {
    const store = memoryStore()
    await storedTurns(store, 'resumed', 3)
    // Resumed: opened from the store (the path that kept the stored session alive).
    const agent = await createAgent({ model: scripted({ responses: [] }), store, sessionId: 'resumed' })
    const refs = agent.session.events.map((event) => new WeakRef(event))
    expect(refs.length).toBeGreaterThan(10)
    await sealIdleSessions()
    // Booleans only (a failed expect keeps its actual value); gc() first in each check: a deref
    // keeps its target alive until the end of that job.
    await vi.waitFor(
      () => {
        gc()
        // Every event but the last, which the session keeps live (`session.last`).
        expect(refs.slice(0, -1).every((ref) => ref.deref() === undefined)).toBe(true)
      },
      { timeout: 10_000, interval: 20 },
    )
    // The sealed log still reads whole, as equal frozen copies.
    expect(agent.session.events.length).toBe(refs.length)
    await agent.close()
  })
})
