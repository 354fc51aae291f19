import { describe, expect, it } from 'vitest'
import type { Store } from '@bosun/core'
import { childIds, eventsOf, ofType, parent, textOf, until, type Script } from '../test/harness.js'
import { crashableStore } from '../test/crash.js'
import { crashChildMidTurn, midTurnScript } from '../test/mid-turn.js'

async function crashWithChildMidTurn(onRecover: 'notify' | 'resume') {
  const { crashable, childId } = await crashChildMidTurn(onRecover)
  const root = await parent({ store: crashable.store(), script: midTurnScript, options: { onRecover } })
  return { root, childId, crashable }
}

describe('recovery after a crash', () => {
  it("notify (default): a child the crash left mid-turn is settled as interrupted; its queued input stays parked, the parent is not woken", async () => {
    const { root, childId, crashable } = await crashWithChildMidTurn('notify')
    expect(root.status).toBe('idle')
    expect(root.inbox.nextTurn.map((m) => m.id)).toEqual([`settle:${childId}:1`])
    expect(textOf(root.inbox.nextTurn[0]!.content as never)).toContain('stopped (interrupted)')
    const child = await eventsOf(crashable.inner, childId)
    expect((ofType(child, 'turn/end').at(-1)!.data as { reason: { kind: string } }).reason.kind).toBe('interrupted')
    expect(ofType(child, 'turn/start')).toHaveLength(1)
    await root.close()
  })

  it("resume: a child the crash left mid-turn with input queued is woken, and settles when it is done", async () => {
    const { root, childId, crashable } = await crashWithChildMidTurn('resume')
    await until(() => ofType(root.session.events, 'subagent/settled').length === 1, 'the settlement')
    // queued or already taken by a turn: either way its text holds the answer of the resumed turn
    const queued = root.inbox.nextTurn.find((m) => m.id === `settle:${childId}:1`)
    const stepped = ofType(root.session.events, 'user/message').map((e) => e.data as { id: string; content: { type: string; text?: string }[] }).find((m) => m.id === `settle:${childId}:1`)
    expect(textOf((queued ?? stepped)!.content as { type: string; text?: string }[])).toContain('did more')
    const child = await eventsOf(crashable.inner, childId)
    expect(ofType(child, 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['interrupted', 'completed'])
    await root.whenIdle()
    await root.close()
  })

  it('a crash between the settle message and its record: on reopen the repeat is refused as a duplicate id and only the record is written', async () => {
    const crashable = crashableStore()
    const first = await parent({ store: crashable.store(), script: { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'quick', mode: 'background' } }] }, { text: 'ok' }] } })
    first.hooks.event.tap('crash', (event) => {
      const inserted = event.type === 'agent/inbox/spliced' ? (event.data as { inserted: { id: string }[] }).inserted : []
      if (inserted.some((m) => m.id.startsWith('settle:'))) crashable.crashAfter(0) // the next append, the record, is lost
    })
    first.followup('go')
    await until(() => crashable.crashed, 'the crash')
    const childId = childIds(first.session.events)[0]!
    const stored = await eventsOf(crashable.inner, 'root')
    expect(ofType(stored, 'subagent/settled')).toHaveLength(0)
    const again = await parent({ store: crashable.store() })
    expect(ofType(again.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId, epoch: 1, messageId: `settle:${childId}:1`, reason: 'completed', answer: 'done: quick' }])
    const settles = [...again.inbox.nextTurn, ...again.inbox.nextStep].filter((m) => m.id === `settle:${childId}:1`)
    expect(settles).toHaveLength(1)
    await again.close()
  })

  it('a child recovery cannot adopt (its session cannot be made) is settled as an error with a message; the parent still opens', async () => {
    const crashable = crashableStore()
    const script: Script = { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'lost', mode: 'background' } }] }, { text: 'ok' }] }
    const dying = await parent({ store: crashable.store(), script })
    crashable.crashWhen((write) => write.kind === 'create' && write.sessionId !== 'root')
    dying.followup('go')
    await until(() => crashable.crashed, 'the crash')
    const store = crashable.store()
    const failing: Store = { ...store, create: async () => { throw new Error('disk full') } }
    const root = await parent({ store: failing, script })
    const childId = childIds(root.session.events)[0]!
    expect(ofType(root.session.events, 'subagent/settled').map((e) => e.data)).toEqual([{ childId, epoch: 1, messageId: `settle:${childId}:1`, reason: 'error', answer: '' }])
    expect(textOf(root.inbox.nextTurn.find((m) => m.id === `settle:${childId}:1`)!.content as never)).toContain('stopped (error)')
    await root.close()
    // Settled: reopening does not try again.
    const again = await parent({ store: crashable.store(), script })
    expect(await eventsOf(crashable.inner, childId).catch(() => 'none')).toBe('none')
    await again.close()
  })
})
