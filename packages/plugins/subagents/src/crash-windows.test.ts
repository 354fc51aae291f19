import { afterEach, describe, expect, it } from 'vitest'
import { TOOL_OUTCOME_UNKNOWN, type SessionEvent, type UserMessage } from '@bosun/core'
import { childIds, ofType, textOf, toolResults, until } from '../test/harness.js'
import { killedProcess, simulatedCrash, type Crashed, type CrashRunner, type JsonScript } from '../test/windows.js'

// The two windows a crash could fall in before the spawn was logged first and the answer was kept
// in `subagent/settled`: each scenario cuts the run at that exact write, reopens, and checks that
// the child is neither orphaned nor its answer lost — simulated in this process, and for real: a
// process on the JSONL and on the SQLite store, killed with SIGKILL at that write.

const settledOf = (events: readonly SessionEvent[]) => ofType(events, 'subagent/settled').map((e) => e.data as { childId: string; epoch: number; messageId?: string; answer?: string })
const queuedSettle = (messages: readonly UserMessage[], childId: string) => messages.filter((m) => m.id === `settle:${childId}:1`)

/** The settle message of a child woken by recovery: still queued, or already taken by a turn (a follow-up wakes an idle parent). */
async function settleMessage(root: Crashed['root'], childId: string): Promise<UserMessage> {
  await until(() => settledOf(root.session.events).length === 1, 'the settlement')
  await root.whenIdle()
  const stepped = ofType(root.session.events, 'user/message').map((e) => e.data as UserMessage)
  const found = [...queuedSettle(root.inbox.nextTurn, childId), ...queuedSettle(stepped, childId)]
  expect(found).toHaveLength(1)
  return found[0]!
}

const runs: Crashed[] = []
afterEach(async () => {
  for (const run of runs.splice(0)) await run.cleanup()
})

/** A guard against a hang, far above what a run needs: the SIGKILL runs start a Node process each, on a shared 2-core machine. */
const TIMEOUT = 120_000

const runners: [string, CrashRunner][] = [['simulated', simulatedCrash], ['SIGKILL, JSONL', killedProcess('jsonl')], ['SIGKILL, SQLite', killedProcess('sqlite')]]

for (const [how, runner] of runners) {
  const crashAt: CrashRunner = async (...args) => {
    const run = await runner(...args)
    runs.push(run)
    return run
  }

  describe(`${how}: a crash between recording a spawn and the child taking its task`, { timeout: TIMEOUT }, () => {
    for (const mode of ['foreground', 'background'] as const) {
      for (const [where, window] of [['before the child session is created', 'create'], ['after the child session is created, before its task is admitted', 'admit']] as const) {
        it(`${mode}, ${where}: on reopen the child is adopted, runs its task once, and its answer reaches the parent as settle:<id>:1`, async () => {
          const script: JsonScript = {
            go: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'count', mode } }] }, { text: 'ok' }],
            count: [{ toolCalls: [{ name: 'report', args: { content: 'seven' } }] }, { text: 'counted' }],
          }
          const { root, events, header } = await crashAt(script, ['go'], window)
          const childId = childIds(root.session.events)[0]!
          const message = await settleMessage(root, childId)
          expect(settledOf(root.session.events)).toEqual([{ childId, epoch: 1, messageId: `settle:${childId}:1`, reason: 'completed', answer: 'seven' }])
          expect(textOf(message.content as never)).toContain('seven')
          expect((await header(childId)).delegation).toEqual({ parentSessionId: 'root', callId: 'c1', depth: 1, mode: mode === 'foreground' ? 'one-shot' : 'continuable' })
          // The task verbatim, from the parent, exactly once.
          const tasks = ofType(await events(childId), 'user/message').map((e) => e.data as UserMessage)
          expect(tasks.map((m) => [textOf(m.content as never), m.source])).toEqual([['count', { kind: 'parent', parentSessionId: 'root', callId: 'c1' }]])
          // The spawn's own tool call was cut by the crash: its repaired result says so.
          expect(textOf(toolResults(root.session.events)[0]!.content)).toBe(TOOL_OUTCOME_UNKNOWN)
          await root.close()
        })
      }
    }

    it('a fork child adopted after the crash is seeded with the parent turns before the spawn, not the spawning one', async () => {
      // One conversation key ('first') for the parent and its fork: the forked child answers its task in text.
      const script: JsonScript = {
        first: [
          { text: 'first answer' },
          { ifLast: 'continue', then: { text: 'continued' }, else: { toolCalls: [{ name: 'spawn_agent', id: 'f1', args: { task: 'continue', context: 'fork' } }] } },
          { text: 'ok' },
        ],
      }
      const { root, events } = await crashAt(script, ['first', 'second'], 'create')
      const childId = childIds(root.session.events)[0]!
      expect(textOf((await settleMessage(root, childId)).content as never)).toContain('continued')
      const said = ofType(await events(childId), 'user/message').map((e) => textOf((e.data as UserMessage).content as never))
      expect(said).toEqual(['first', 'continue'])
      await root.close()
    })
  })

  describe(`${how}: a crash between a foreground settlement and its tool result`, { timeout: TIMEOUT }, () => {
    it('on reopen the answer is delivered from subagent/settled as settle:<id>:1, once, and never settled twice', async () => {
      const script: JsonScript = {
        go: [{ toolCalls: [{ name: 'spawn_agent', id: 'c1', args: { task: 'answer' } }] }, { text: 'ok' }],
        answer: [{ toolCalls: [{ name: 'report', args: { content: 'forty-two' } }] }, { text: 'bye' }],
      }
      const { root, reopen, events } = await crashAt(script, ['go'], 'result')
      const childId = childIds(root.session.events)[0]!
      expect(settledOf(root.session.events)).toEqual([{ childId, epoch: 1, reason: 'completed', answer: 'forty-two' }])
      expect(textOf(toolResults(root.session.events)[0]!.content)).toBe(TOOL_OUTCOME_UNKNOWN)
      const [message] = queuedSettle(root.inbox.nextTurn, childId)
      expect(textOf(message!.content as never)).toBe(`[subagent] The agent ${childId} finished, settlement 1.\nforty-two`)
      expect(message!.source).toEqual({ kind: 'subagent-settled', childId, epoch: 1 })
      await root.close()

      // Reopened again (and the model given the message): delivered once in all, settled once.
      const again = await reopen()
      expect(queuedSettle(again.inbox.nextTurn, childId)).toHaveLength(1)
      again.wake()
      await until(() => again.status === 'idle' && !again.inbox.hasPending, 'the parent to take the answer')
      await again.close()
      const third = await reopen()
      expect(third.inbox.hasPending).toBe(false)
      const stored = await events('root')
      expect(ofType(stored, 'user/message').filter((e) => (e.data as UserMessage).id === `settle:${childId}:1`)).toHaveLength(1)
      expect(settledOf(stored)).toHaveLength(1)
      await third.close()
    })
  })
}
