// A crash that leaves a background child mid-turn with a second message queued for it: the
// scenario recovery's `onRecover` choice is about.
import type { ModelRequest } from '@bosun/core'
import { childIds, eventsOf, eventually, ofType, parent, startedId, textOf, until, type Script } from './harness.js'
import { crashableStore } from './crash.js'

const hang = { text: 'never finishes', delayMs: 600_000 }
const lastUser = (request: ModelRequest) => {
  const users = request.messages.filter((m) => m.role === 'user')
  const last = users[users.length - 1]
  return last && last.role === 'user' ? textOf(last.content as never) : ''
}

/** The parent starts a background child that hangs on its task, then queues a second message for it (which it answers). */
export const midTurnScript: Script = {
  go: [
    { toolCalls: [{ name: 'spawn_agent', args: { task: 'work', mode: 'background' } }] },
    (request) => ({ toolCalls: [{ name: 'send_to_agent', args: { childId: startedId(request), message: 'and more' } }] }),
    { text: 'waiting' },
  ],
  work: [(request) => (lastUser(request) === 'and more' ? { text: 'did more' } : hang), (request) => (lastUser(request) === 'and more' ? { text: 'did more' } : hang)],
}

/** Runs {@link midTurnScript} until the child is in its model call with the message queued, then crashes. */
export async function crashChildMidTurn(onRecover: 'notify' | 'resume') {
  const crashable = crashableStore()
  const dying = await parent({ store: crashable.store(), script: midTurnScript, options: { onRecover } })
  dying.followup('go')
  await until(() => dying.status === 'idle' && ofType(dying.session.events, 'subagent/sent').length === 1, 'the follow-up to be queued in the child')
  const childId = childIds(dying.session.events)[0]!
  await eventually(async () => (await eventsOf(crashable.inner, childId)).some((e) => e.type === 'step/start'), "the child's model call")
  crashable.crash()
  return { crashable, childId }
}
