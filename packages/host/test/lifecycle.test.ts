import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, type Agent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { SessionManager, type AgentFactory } from '../src/index.js'
import { tempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  await cleanup()
})

/** Agents whose `close()` calls are counted and, while `gate` is set, held until it resolves. */
function countingFactory(): { factory: AgentFactory; closes: Map<string, number>; opens: Map<string, number>; gate: { promise?: Promise<void> } } {
  const closes = new Map<string, number>()
  const opens = new Map<string, number>()
  const gate: { promise?: Promise<void> } = {}
  const factory: AgentFactory = async ({ sessionId, store }) => {
    const agent: Agent = await createAgent({ model: scripted({ responses: [] }), store, sessionId })
    opens.set(sessionId, (opens.get(sessionId) ?? 0) + 1)
    const close = agent.close.bind(agent)
    agent.close = async () => {
      closes.set(sessionId, (closes.get(sessionId) ?? 0) + 1)
      if (gate.promise) await gate.promise
      return close()
    }
    return agent
  }
  return { factory, closes, opens, gate }
}

/** Lets every timer due within `ms` fire: timers fire in deadline order, so this orders, it does not time. */
const afterTimers = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

describe('session manager: closing', () => {
  it('a stream released after the host closed does not re-arm the idle retire nor close the agent twice', async () => {
    const store = jsonlStore({ dir })
    const { factory, closes } = countingFactory()
    const sessions = new SessionManager(store, factory, 5)
    const live = await sessions.use('s', { create: true })
    const release = sessions.hold(live)
    await sessions.close()
    expect(closes.get('s')).toBe(1)
    release()
    expect(live.idleTimer).toBeUndefined()
    // Any retire armed by the release (idle 5 ms) would have fired before this 50 ms timer.
    await afterTimers(50)
    expect(closes.get('s')).toBe(1)
    await sessions.close()
    expect(closes.get('s')).toBe(1)
    await store.close?.()
  })
})

describe('session manager: races', () => {
  it('a use() while an idle-retired agent is still closing waits for it instead of finding the log locked', async () => {
    const store = jsonlStore({ dir })
    const { factory, closes, opens, gate } = countingFactory()
    const sessions = new SessionManager(store, factory, 5)
    let open!: () => void
    gate.promise = new Promise((r) => { open = r })
    await sessions.use('s', { create: true })
    // Retired for idleness: its close is now held by the gate (the JSONL lock still taken).
    await waitFor(() => closes.get('s') === 1, 15_000, 'the idle retire to start closing')
    const reopened = sessions.use('s')
    // Before, the reopen built a second agent at once and failed with session-locked.
    expect(opens.get('s')).toBe(1)
    open()
    const live = await reopened
    expect(opens.get('s')).toBe(2)
    expect(live.closed).toBeUndefined()
    gate.promise = undefined
    await sessions.close()
    await store.close?.()
  })

  it('two first uses with create "if-missing" share one open and one agent', async () => {
    const store = jsonlStore({ dir })
    const { factory, opens } = countingFactory()
    const added: string[] = []
    const sessions = new SessionManager(store, factory, 60_000, (id, kind) => { if (kind === 'added') added.push(id) })
    const [a, b] = await Promise.all([sessions.use('new', { create: 'if-missing' }), sessions.use('new', { create: 'if-missing' })])
    expect(a).toBe(b)
    expect(opens.get('new')).toBe(1)
    expect(added).toEqual(['new'])
    // And on a stored session it resumes, announcing nothing.
    await sessions.close()
    const again = new SessionManager(store, factory, 60_000, (id, kind) => { if (kind === 'added') added.push(id) })
    expect((await again.use('new', { create: 'if-missing' })).agent.session.header.id).toBe('new')
    expect(added).toEqual(['new'])
    await again.close()
    await store.close?.()
  })
})
