// Review C3: a settlement recovery produces can start a turn, so it waits until the parent agent
// is whole — every later plugin's setup done (an async one awaited), their hooks tapped.
import { describe, expect, it } from 'vitest'
import { definePlugin, type PluginEntry, type Store } from '@bosun/core'
import subagents from './index.js'
import { eventsOf, eventually, gate, ofType, parent, until } from '../test/harness.js'
import { crashChildMidTurn, midTurnScript } from '../test/mid-turn.js'
import { countingStore } from '../test/counting-store.js'

const script = midTurnScript
const crashed = () => crashChildMidTurn('resume')

/** A plugin after subagents whose setup, in the parent only, waits for the test (as one that connects to a service would). */
function laterPlugin(wait: Promise<void>, steps: string[], fail = false) {
  return definePlugin({
    name: 'later',
    async setup({ hooks, session }) {
      if (session.header.delegation) return
      await wait
      if (fail) throw new Error('the rate-limit service is down')
      hooks.preStep.tapPromise('later', async (decision) => (steps.push('pre-step'), decision))
    },
  })
}

const childSettled = async (store: Store, childId: string) =>
  ofType(await eventsOf(store, childId), 'turn/end').some((e) => (e.data as { reason: { kind: string } }).reason.kind === 'completed')

describe('recovered settlements and the agent being built', () => {
  it('no turn starts while a later plugin\'s setup awaits; once it resolves the settlement wakes the parent through that plugin\'s hooks', async () => {
    const { crashable, childId } = await crashed()
    const wait = gate()
    const steps: string[] = []
    const plugins: PluginEntry[] = [[subagents, { onRecover: 'resume' }], laterPlugin(wait.promise, steps)]
    const building = parent({ store: crashable.store(), script, plugins })
    // The child, woken by the parent's recovery, finishes while the parent is still being built.
    await eventually(() => childSettled(crashable.inner, childId), 'the woken child to finish')
    const stored = await eventsOf(crashable.inner, 'root')
    expect(ofType(stored, 'turn/start')).toHaveLength(1) // the one before the crash
    expect(ofType(stored, 'subagent/settled')).toHaveLength(0)
    wait.open()
    const root = await building
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1 && root.status === 'idle' && ofType(root.session.events, 'turn/end').length === 2, 'the settlement and the turn it wakes')
    expect(steps).toEqual(['pre-step'])
    const claimed = ofType(root.session.events, 'user/message').map((e) => (e.data as { id: string }).id)
    expect(claimed).toContain(`settle:${childId}:1`)
    await root.close()
  })

  it('a later setup that throws: no turn starts, the woken child is closed, and the next reopen delivers its settlement', async () => {
    const { crashable, childId } = await crashed()
    const wait = gate()
    const plugins: PluginEntry[] = [[subagents, { onRecover: 'resume' }], laterPlugin(wait.promise, [], true)]
    const counted = countingStore(crashable.store())
    const building = parent({ store: counted.store, script, plugins })
    await eventually(() => childSettled(crashable.inner, childId), 'the woken child to finish')
    wait.open()
    await expect(building).rejects.toThrow(/rate-limit service is down/)
    expect([...new Set(counted.closed)]).toEqual([childId, 'root']) // child first, by the plugin's onClose
    const stored = await eventsOf(crashable.inner, 'root')
    expect(ofType(stored, 'turn/start')).toHaveLength(1)
    // Released: both reopen, and the settlement the failed build never delivered is delivered now.
    const root = await parent({ store: crashable.store(), script, options: { onRecover: 'resume' } })
    expect(root.inbox.nextTurn.map((m) => m.id)).toEqual([`settle:${childId}:1`])
    await root.close()
  })
})
