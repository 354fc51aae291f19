// A parent canceled while idle, its background child still running: the child's settlement is
// queued in the parent without a wake (parked). Reopening the parent — after a restart, or by a
// host that opens it only to reach a child — must not run a turn for it: nothing in the parent's
// recovery reports a wake owed (agent.recovery.waiting), which its host would honour.
import { describe, expect, it } from 'vitest'
import { memoryStore } from '@bosun/core'
import { childIds, ofType, parent, until } from '../test/harness.js'

const hang = { text: 'never finishes', delayMs: 600_000 }

describe('a settlement parked by a cancel of an idle parent', () => {
  it('stays parked when the parent is reopened: no wake is owed for it', async () => {
    const store = memoryStore()
    const script = { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'bg', mode: 'background' } }] }, { text: 'started' }], bg: [hang] }
    const root = await parent({ store, script })
    root.followup('go')
    await until(() => ofType(root.session.events, 'turn/end').length === 1 && root.status === 'idle', "the parent's turn")
    const childId = childIds(root.session.events)[0]!
    // Idle, with its child running: the cancel reaches the child, whose settlement is parked here.
    root.cancel()
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    expect(root.inbox.nextTurn.map((m) => m.id)).toEqual([`settle:${childId}:1`])
    expect(root.status).toBe('idle')
    await root.close()

    const reopened = await parent({ store, script })
    expect(reopened.inbox.nextTurn.map((m) => m.id)).toEqual([`settle:${childId}:1`])
    expect(reopened.recovery.waiting).toBeUndefined()
    expect(reopened.status).toBe('idle')
    await reopened.close()
  })
})
