// Review P4 and the foreground close: recovery opens only children that may still settle, and a
// foreground child recovery woke is closed once it has answered.
import { describe, expect, it } from 'vitest'
import type { ScriptedResponse } from '@bosun/adapter-scripted'
import { memoryStore, type ModelRequest } from '@bosun/core'
import { childIds, eventsOf, ofType, parent, textOf, until, type Script } from '../test/harness.js'
import { crashableStore } from '../test/crash.js'
import { countingStore } from '../test/counting-store.js'

const lastMessageIsUser = (request: ModelRequest, text: string) => {
  const last = request.messages.at(-1)
  return last?.role === 'user' && textOf(last.content as never) === text
}
const settledEpochs = (events: Parameters<typeof ofType>[0], childId: string) =>
  ofType(events, 'subagent/settled').filter((e) => (e.data as { childId: string }).childId === childId).map((e) => (e.data as { epoch: number }).epoch)

describe('recovery opens only what may still settle', () => {
  it('a parent reopened with many settled background children opens none of them; a send opens just that one, which settles again', async () => {
    const inner = memoryStore()
    let target = ''
    const decide = (request: ModelRequest): ScriptedResponse => {
      if (lastMessageIsUser(request, 'go')) return { toolCalls: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((task) => ({ name: 'spawn_agent', args: { task, mode: 'background' } })) }
      if (lastMessageIsUser(request, 'list')) return { toolCalls: [{ name: 'list_agents', args: {} }] }
      if (lastMessageIsUser(request, 'again')) return { toolCalls: [{ name: 'send_to_agent', args: { childId: target, message: 'more' } }] }
      return { text: 'ok' }
    }
    const script: Script = { go: Array.from({ length: 40 }, () => decide) }
    const options = { maxLiveChildren: 8 }
    const first = await parent({ store: inner, script, options })
    first.followup('go')
    await until(() => ofType(first.session.events, 'subagent/settled').length === 6 && first.status === 'idle', 'six settlements')
    const children = childIds(first.session.events)
    await first.close()

    const counted = countingStore(inner)
    const root = await parent({ store: counted.store, script, options })
    expect(counted.opens).toEqual(['root'])
    // Listing them opens none either: settled continuable children wait, idle, to be sent to.
    root.followup('list')
    await until(() => root.status === 'idle' && ofType(root.session.events, 'tool/result').length === 7, 'the listing')
    const listing = textOf((ofType(root.session.events, 'tool/result').at(-1)!.data as { content: never }).content)
    expect(listing.split('\n').map((line) => JSON.parse(line) as { status: string; live: boolean; settlements: number })).toEqual(
      children.map((childId) => ({ childId, agent: null, mode: 'background', status: 'idle', live: false, settlements: 1 })))
    expect(counted.opens).toEqual(['root'])
    target = children[2]!
    root.followup('again')
    await until(() => settledEpochs(root.session.events, target).length === 2 && root.status === 'idle', 'the second settlement')
    expect(counted.opens).toEqual(['root', target])
    expect(settledEpochs(root.session.events, target)).toEqual([1, 2])
    expect(textOf(root.session.events.map((e) => e.data as { id?: string; content?: never }).find((m) => m.id === `settle:${target}:2`)!.content!)).toContain('done: c3')
    await root.close()
  })

  it('a foreground child adopted by recovery is closed once it has answered', async () => {
    const crashable = crashableStore()
    const script: Script = { go: [{ toolCalls: [{ name: 'spawn_agent', args: { task: 'lost' } }] }, { text: 'ok' }, { text: 'thanks' }] }
    const dying = await parent({ store: crashable.store(), script })
    crashable.crashWhen((write) => write.kind === 'create' && write.sessionId !== 'root')
    dying.followup('go')
    await until(() => crashable.crashed, 'the crash')
    const counted = countingStore(crashable.store())
    const root = await parent({ store: counted.store, script })
    const childId = childIds(root.session.events)[0]!
    await until(() => settledEpochs(root.session.events, childId).length === 1, 'the adopted child to settle')
    await until(() => counted.closed.includes(childId), "the child's session to be closed")
    expect(counted.closed).not.toContain('root')
    const child = await eventsOf(crashable.inner, childId)
    expect(ofType(child, 'turn/end')).toHaveLength(1)
    await root.whenIdle()
    await root.close()
  })
})
