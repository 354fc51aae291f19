// A settlement sent as a follow-up wakes an idle parent; a crash between its admission and the
// turn it starts must not leave it parked: the message records its delivery, so crash repair
// reports it as owed a wake (core's `recovery.waiting`), which whoever resumes the parent (the
// host) acts on. A settlement parked after a cancel records none (cancel-parked.test.ts).
import { describe, expect, it } from 'vitest'
import type { Tool, UserMessage } from '@bosun/core'
import { crashableStore } from '../test/crash.js'
import { childIds, gate, ofType, parent, until } from '../test/harness.js'

describe('a settlement follow-up cut by a crash before its turn', () => {
  it('is reported as waiting on reopen, and runs once woken', async () => {
    const hold = gate()
    const wait: Tool = { name: 'wait', description: 'waits', parameters: { type: 'object' }, execute: async () => { await hold.promise; return 'waited' } }
    const script = {
      go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'dig', mode: 'background' } }] }, { text: 'started' }, { text: 'noted' }],
      dig: [{ toolCalls: [{ name: 'wait', args: {} }] }, { text: 'dug' }],
    }
    const crashable = crashableStore()
    const dying = await parent({ store: crashable.store(), script, tools: [wait] })
    dying.followup('go')
    await until(() => ofType(dying.session.events, 'turn/end').length === 1 && dying.status === 'idle', "the parent's first turn")
    // The parent is idle when its child settles: the settlement is a follow-up, and its turn/start is lost.
    crashable.crashWhen((write) => write.kind === 'append' && write.sessionId === 'root' && write.event.type === 'turn/start')
    hold.open()
    await until(() => crashable.crashed, 'the crash')
    const [childId] = childIds(dying.session.events)

    const root = await parent({ store: crashable.store(), script, tools: [wait] })
    const settle = root.inbox.nextTurn.find((m) => m.id === `settle:${childId}:1`) as UserMessage
    expect(settle.source).toEqual({ kind: 'subagent-settled', childId, epoch: 1, delivery: 'followup' })
    expect(root.recovery.waiting).toEqual([`settle:${childId}:1`])
    root.wake()
    await until(() => root.status === 'idle' && !root.inbox.hasPending, 'the parent to take the settlement')
    expect(ofType(root.session.events, 'user/message').filter((e) => (e.data as UserMessage).id === settle.id)).toHaveLength(1)
    await root.close()
  })
})
