// A refused fork point says which turns can be forked at (walkthrough of docs/cli.md, docs/host.md):
// `bosun sessions fork s --at-turn 9` on a 4-turn session used to answer only "that turn has not
// completed", which reads as if turn 9 were running, and did not say what to ask for instead.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { preStepThatNeverReturns } from '../testing/hold-steps.js'
import { forkSession } from './fork.js'
import { memoryStore } from './memory.js'

async function refusal(fork: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await fork.then(() => undefined, (caught: unknown) => caught as { code: string; message: string })
  expect(error, 'the fork was refused').toBeDefined()
  return error!
}

describe('forking after a turn that has not ended', () => {
  it('a turn past the last one: says how many turns there are and which to name', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'two-turns' })
    agent.followup('one')
    agent.followup('two')
    await agent.whenIdle()
    const error = await refusal(forkSession(store, 'two-turns', { afterTurn: 7 }))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toBe(
      'Cannot fork session "two-turns" after turn 7: there is no such turn. The session has turns up to 2: ' +
        'name a turn up to 2, its last ended one, or leave the turn out to fork after it.',
    )
    await agent.close()
  })

  it('a session with no turns: only turn 0 (before the first turn) can be forked at', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'empty' })
    const error = await refusal(forkSession(store, 'empty', { afterTurn: 1 }))
    expect(error.message).toBe(
      'Cannot fork session "empty" after turn 1: there is no such turn. The session has no turns yet: fork after turn 0 (before the first turn).',
    )
    await agent.close()
  })

  it('the open turn: says it is still open and names the last ended turn', async () => {
    const store = memoryStore()
    const agent = await createAgent({ model: scripted(), store, sessionId: 'open', plugins: [preStepThatNeverReturns()] })
    const seen = new Promise<void>((resolve) => agent.session.subscribe((event) => event.type === 'turn/start' && resolve()))
    agent.followup('held')
    await seen
    const error = await refusal(forkSession(store, 'open', { afterTurn: 1 }))
    expect(error.message).toBe(
      'Cannot fork session "open" after turn 1: that turn has not completed. Turn 1 is still open (running, or left open by a crash ' +
        'until the session is reopened): fork after turn 0 (before the first turn).',
    )
    agent.abort()
    await agent.close()
  })
})
