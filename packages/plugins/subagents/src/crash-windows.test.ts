import { describe, expect, it } from 'vitest'
import { TOOL_OUTCOME_UNKNOWN, type ModelRequest, type SessionEvent, type UserMessage } from '@bosun/core'
import { childIds, eventsOf, ofType, parent, read as readStored, textOf, toolResults, until, type Script } from '../test/harness.js'
import { crashableStore, type Write } from '../test/crash.js'

// The two windows a crash could fall in before the spawn was logged first and the answer was kept
// in `subagent/settled`: each test cuts the run at that exact write, reopens, and checks that the
// child is neither orphaned nor its answer lost.

const settledOf = (events: readonly SessionEvent[]) => ofType(events, 'subagent/settled').map((e) => e.data as { childId: string; epoch: number; messageId?: string; answer?: string })
const queuedSettle = (messages: readonly UserMessage[], childId: string) => messages.filter((m) => m.id === `settle:${childId}:1`)
const lastUser = (request: ModelRequest) => {
  const last = request.messages.filter((m) => m.role === 'user').at(-1)
  return last && last.role === 'user' ? textOf(last.content as never) : ''
}

/** The settle message of a child woken by recovery: still queued, or already taken by a turn (a follow-up wakes an idle parent). */
async function settleMessage(root: Awaited<ReturnType<typeof parent>>, childId: string): Promise<UserMessage> {
  await until(() => settledOf(root.session.events).length === 1, 'the settlement')
  await root.whenIdle()
  const stepped = ofType(root.session.events, 'user/message').map((e) => e.data as UserMessage)
  const found = [...queuedSettle(root.inbox.nextTurn, childId), ...queuedSettle(stepped, childId)]
  expect(found).toHaveLength(1)
  return found[0]!
}

async function crashAt(script: Script, prompts: string[], predicate: (write: Write) => boolean) {
  const crashable = crashableStore()
  const dying = await parent({ store: crashable.store(), script })
  for (const prompt of prompts.slice(0, -1)) {
    dying.followup(prompt)
    await dying.whenIdle()
  }
  crashable.crashWhen(predicate)
  dying.followup(prompts.at(-1)!)
  await until(() => crashable.crashed, 'the crash')
  // `dying` is abandoned, as a killed process would be.
  const root = await parent({ store: crashable.store(), script })
  return { root, crashable, read: (id: string) => eventsOf(crashable.inner, id), header: async (id: string) => (await readStored(crashable.inner, id)).header }
}

const childCreated = (write: Write) => write.kind === 'create' && write.sessionId !== 'root'
const taskAdmitted = (write: Write) => write.kind === 'append' && write.sessionId !== 'root' && write.event.type === 'agent/inbox/spliced'

describe('a crash between recording a spawn and the child taking its task', () => {
  for (const mode of ['foreground', 'background'] as const) {
    for (const [where, predicate] of [['before the child session is created', childCreated], ['after the child session is created, before its task is admitted', taskAdmitted]] as const) {
      it(`${mode}, ${where}: on reopen the child is adopted, runs its task once, and its answer reaches the parent as settle:<id>:1`, async () => {
        const script: Script = {
          go: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'count', mode } }] }, { text: 'ok' }],
          count: [{ toolCalls: [{ name: 'report', args: { content: 'seven' } }] }, { text: 'counted' }],
        }
        const { root, read, header } = await crashAt(script, ['go'], predicate)
        const childId = childIds(root.session.events)[0]!
        const message = await settleMessage(root, childId)
        expect(settledOf(root.session.events)).toEqual([{ childId, epoch: 1, messageId: `settle:${childId}:1`, reason: 'completed', answer: 'seven' }])
        expect(textOf(message.content as never)).toContain('seven')
        const child = await read(childId)
        expect((await header(childId)).delegation).toEqual({ parentSessionId: 'root', callId: 'c1', depth: 1, mode: mode === 'foreground' ? 'one-shot' : 'continuable' })
        // The task verbatim, from the parent, exactly once.
        const tasks = ofType(child, 'user/message').map((e) => e.data as UserMessage)
        expect(tasks.map((m) => [textOf(m.content as never), m.source])).toEqual([['count', { kind: 'parent', parentSessionId: 'root', callId: 'c1' }]])
        // The spawn's own tool call was cut by the crash: its repaired result says so.
        expect(textOf(toolResults(root.session.events)[0]!.content)).toBe(TOOL_OUTCOME_UNKNOWN)
        await root.close()
      })
    }
  }

  it('a fork child adopted after the crash is seeded with the parent turns before the spawn, not the spawning one', async () => {
    // One conversation key ('first') for the parent and its fork: the forked child answers its task in text.
    const script: Script = {
      first: [
        { text: 'first answer' },
        (request) => (lastUser(request) === 'continue' ? { text: 'continued' } : { toolCalls: [{ name: 'spawn_agent', id: 'f1', args: { task: 'continue', context: 'fork' } }] }),
        { text: 'ok' },
      ],
    }
    const { root, read } = await crashAt(script, ['first', 'second'], childCreated)
    const childId = childIds(root.session.events)[0]!
    expect(textOf((await settleMessage(root, childId)).content as never)).toContain('continued')
    const child = await read(childId)
    const said = ofType(child, 'user/message').map((e) => textOf((e.data as UserMessage).content as never))
    expect(said).toEqual(['first', 'continue'])
    await root.close()
  })
})

describe('a crash between a foreground settlement and its tool result', () => {
  const script: Script = {
    go: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'answer' } }] }, { text: 'ok' }],
    answer: [{ toolCalls: [{ name: 'report', args: { content: 'forty-two' } }] }, { text: 'bye' }],
  }
  const toolResult = (write: Write) => write.kind === 'append' && write.sessionId === 'root' && write.event.type === 'tool/result'

  it('on reopen the answer is delivered from subagent/settled as settle:<id>:1, once, and never settled twice', async () => {
    const { root, crashable, read } = await crashAt(script, ['go'], toolResult)
    const childId = childIds(root.session.events)[0]!
    expect(settledOf(root.session.events)).toEqual([{ childId, epoch: 1, reason: 'completed', answer: 'forty-two' }])
    expect(textOf(toolResults(root.session.events)[0]!.content)).toBe(TOOL_OUTCOME_UNKNOWN)
    const [message] = queuedSettle(root.inbox.nextTurn, childId)
    expect(textOf(message!.content as never)).toBe(`[subagent] The agent ${childId} finished, settlement 1.\nforty-two`)
    expect(message!.source).toEqual({ kind: 'subagent-settled', childId, epoch: 1 })
    await root.close()

    // Reopened again (and the model given the message): delivered once in all, settled once.
    const again = await parent({ store: crashable.store(), script })
    expect(queuedSettle(again.inbox.nextTurn, childId)).toHaveLength(1)
    again.wake()
    await until(() => again.status === 'idle' && !again.inbox.hasPending, 'the parent to take the answer')
    await again.close()
    const third = await parent({ store: crashable.store(), script })
    expect(third.inbox.hasPending).toBe(false)
    const events = await read('root')
    expect(ofType(events, 'user/message').filter((e) => (e.data as UserMessage).id === `settle:${childId}:1`)).toHaveLength(1)
    expect(settledOf(events)).toHaveLength(1)
    await third.close()
  })
})
