// agent.stopAfterTurn(): a process going away within a grace (the host's close({ graceMs })) lets
// the running turn finish but claims nothing for another — the claim is the commit point (seed
// 003), so a turn started in the grace would end aborted with its input consumed. What is queued
// stays queued, and the agent that resumes the session is told to run it (recovery.waiting).
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { memoryStore } from '../store/memory.js'
import { is } from '../testing/agent-probes.js'
import { gate, msg } from '../testing/harness.js'
import { definePlugin } from '../plugin.js'

/** A pre-step that holds the first step until `release()`; later steps pass. `entered` resolves when it holds. */
function holdFirstStep() {
  const entered = gate()
  const released = gate()
  let held = false
  const plugin = definePlugin({
    name: 'hold-first-step',
    setup({ hooks }) {
      hooks.preStep.tapPromise('hold-first-step', async (decision) => {
        if (held) return decision
        held = true
        entered.open()
        await released.promise
        return decision
      })
    },
  })
  return { plugin, entered: entered.promise, release: () => released.open() }
}

describe('agent.stopAfterTurn()', () => {
  it('lets the running turn finish (its steering too), starts no other, and leaves the queue for the resume', async () => {
    const store = memoryStore()
    const hold = holdFirstStep()
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'one' }, { text: 'steered' }, { text: 'never' }] }), store, sessionId: 's', plugins: [hold.plugin] })
    agent.followup(msg('a'))
    await hold.entered
    agent.followup(msg('b'))
    agent.steer(msg('s'))

    const stopped = agent.stopAfterTurn()
    // Sent after the stop: queued (and stored), no turn for it, nor for a wake.
    agent.followup(msg('c'))
    agent.wake()
    hold.release()
    await stopped
    expect(agent.status).toBe('idle')
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(1)
    // The steer was claimed by the running turn's next step: part of that turn.
    const entered = agent.session.events.filter(is('user/message')).map((e) => (e.data as { id: string }).id)
    expect(entered).toEqual(['a', 's'])
    expect(agent.session.events.filter(is('turn/end')).map((e) => (e.data as { reason: unknown }).reason)).toEqual([{ kind: 'completed' }])
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual(['b', 'c'])
    agent.wake()
    expect(agent.status).toBe('idle')
    await agent.close()

    const resumed = await createAgent({ model: scripted({ responses: [{ text: 'b done' }, { text: 'c done' }] }), store, sessionId: 's' })
    expect(resumed.recovery.waiting).toEqual(['b', 'c'])
    resumed.wake()
    await resumed.whenIdle()
    expect(resumed.session.events.filter(is('turn/end')).map((e) => (e.data as { reason: unknown }).reason)).toEqual([{ kind: 'completed' }, { kind: 'completed' }, { kind: 'completed' }])
    expect(resumed.inbox.hasPending).toBe(false)
    await resumed.close()
  })

  it('from idle, resolves at once and keeps later sends queued', async () => {
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'never' }] }) })
    await agent.stopAfterTurn()
    agent.followup(msg('late'))
    expect(agent.status).toBe('idle')
    await agent.whenIdle()
    expect(agent.session.events.filter(is('turn/start'))).toHaveLength(0)
    expect(agent.inbox.nextTurn.map((m) => m.id)).toEqual(['late'])
    await agent.close()
  })
})

describe("plugins' onStopAfterTurn", () => {
  it('stopAfterTurn() resolves once every callback has settled; one that throws is reported, not thrown', async () => {
    const work = gate()
    const calls: string[] = []
    const errors: string[] = []
    const beside = definePlugin({
      name: 'beside',
      setup({ hooks, onStopAfterTurn }) {
        hooks.error.tap('beside', (_error, where) => void errors.push(where))
        onStopAfterTurn(async () => {
          calls.push('waits')
          await work.promise
        })
        onStopAfterTurn(() => {
          calls.push('throws')
          throw new Error('a plugin that fails to stop')
        })
      },
    })
    const agent = await createAgent({ model: scripted({ responses: [] }), store: memoryStore(), sessionId: 's', plugins: [beside] })
    let stopped = false
    const stopping = agent.stopAfterTurn().then(() => { stopped = true })
    // Called once each, at once, even with the agent idle; a second call does not run them again.
    expect(agent.stopAfterTurn()).toBe(agent.stopAfterTurn())
    expect(calls).toEqual(['waits', 'throws'])
    for (let i = 0; i < 5; i++) await Promise.resolve()
    expect(stopped).toBe(false)
    work.open()
    await stopping
    expect(errors).toEqual(['a plugin stopAfterTurn callback'])
    expect(() => agent.onStopAfterTurn(7 as never)).toThrow('onStopAfterTurn(callback): callback must be a function.')
    await agent.close()
  })
})
