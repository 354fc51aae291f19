// A background child whose first turn ended in an error (a model failure) did start: its session
// holds its task and its turn. Unlike a child whose spawn failed, it takes messages after its
// parent's reopen — from the parent's send_to_agent, and from a host (openThroughParent).
import { describe, expect, it } from 'vitest'
import { memoryStore, openThroughParent } from '@bosun/core'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import type { ModelRequest } from '@bosun/core'
import { childIds, ofType, parent, startedId, textOf, toolResults, until, type Script } from '../test/harness.js'

describe('a background child whose first turn failed', () => {
  it('is continued after the parent reopens: send_to_agent reaches it, and a host gets it through its parent', async () => {
    const store = memoryStore()
    let calls = 0
    const flaky = (): ScriptedResponse => (calls++ === 0 ? { error: { status: 500, retryable: false } } : { text: `worked on try ${calls}` })
    // The parent spawns, then answers everything but the user's "send it again", which it passes on.
    const planStep = (request: ModelRequest): ScriptedResponse => {
      const last = request.messages.at(-1)!
      if (!request.messages.some((m) => m.role === 'assistant')) return { toolCalls: [{ name: 'spawn_agent', args: { task: 'flaky', mode: 'background' } }] }
      if (last.role === 'user' && textOf(last.content as { type: string; text?: string }[]) === 'send it again') {
        return { toolCalls: [{ name: 'send_to_agent', id: 'again', args: { childId: startedId(request), message: 'try again' } }] }
      }
      return { text: 'ok' }
    }
    const script: Script = { plan: Array.from({ length: 10 }, () => planStep), flaky: [flaky, flaky, flaky] }
    const first = await parent({ store, script })
    first.followup('plan')
    await until(() => ofType(first.session.events, 'subagent/settled').length === 1 && first.status === 'idle', 'the failed settlement')
    const [childId] = childIds(first.session.events)
    expect(ofType(first.session.events, 'subagent/settled')[0]!.data).toMatchObject({ childId, epoch: 1, reason: 'error' })
    await first.close()

    const reopened = await parent({ store, script })
    // A host asking for the child gets it from its parent.
    const lent = await openThroughParent(store, childId!, 'root')
    expect(lent?.session.header.id).toBe(childId)
    reopened.followup('send it again')
    await until(() => ofType(reopened.session.events, 'subagent/settled').length === 2 && reopened.status === 'idle', 'the second settlement')
    const sent = toolResults(reopened.session.events).find((r) => r.callId === 'again')!
    expect(sent.isError).toBeFalsy()
    expect(ofType(reopened.session.events, 'subagent/settled')[1]!.data).toMatchObject({ childId, epoch: 2, reason: 'completed', answer: 'worked on try 2' })
    await reopened.close()
  })
})
