// Review of 2d59179: a send of an id the session has already used is a duplicate whatever its
// delivery says. The delivery check ran first, so re-sending a message the agent had queued (its
// source records how it was sent) with another method answered DELIVERY_MISMATCH and advised
// sending it with the method it names — which then failed with DUPLICATE_MESSAGE_ID — and a
// caller that treats DUPLICATE_MESSAGE_ID as "already admitted" (the host's admission, the
// subagents settlement) got an error instead of its idempotent answer.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { ErrorCodes } from '../errors.js'
import type { InboxSplice } from '../inbox/types.js'
import { createUserMessage } from '../session/messages.js'
import { nextEvent } from '../testing/agent-probes.js'
import { thrown } from '../testing/errors.js'
import { preStepThatNeverReturns } from '../testing/hold-steps.js'

const METHODS = ['followup', 'steer', 'inject'] as const

describe('a send of a used id whose delivery disagrees with the method', () => {
  for (const first of METHODS) {
    for (const again of METHODS.filter((m) => m !== first)) {
      it(`${first}() then ${again}() of the same message: DUPLICATE_MESSAGE_ID, nothing logged`, async () => {
        const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
        const sent = agent[first](createUserMessage('m', { id: 'm1' }))
        expect(sent.source.delivery).toBe(first)
        const length = agent.session.length
        const error = thrown(() => agent[again](sent))
        expect(error.code).toBe(ErrorCodes.DUPLICATE_MESSAGE_ID)
        expect(error.details).toEqual({ id: 'm1' })
        expect(agent.session.length).toBe(length)
        agent.abort('done')
        await agent.whenIdle()
        await agent.close()
      })
    }
  }

  it('a claimed one too (not pending any more, the id still used)', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
    const sent = agent.followup(createUserMessage('m', { id: 'm1' }))
    await nextEvent(agent, (event) => event.type === 'agent/inbox/spliced' && (event.data as InboxSplice).removedCount === 1)
    expect(agent.inbox.find('m1')).toBeUndefined()
    expect(thrown(() => agent.inject(sent)).code).toBe(ErrorCodes.DUPLICATE_MESSAGE_ID)
    agent.abort('done')
    await agent.whenIdle()
    await agent.close()
  })

  it('an unused id whose delivery disagrees is still DELIVERY_MISMATCH', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
    const error = thrown(() => agent.inject(createUserMessage('m', { id: 'fresh', source: { kind: 'user', delivery: 'followup' } })))
    expect(error.code).toBe(ErrorCodes.DELIVERY_MISMATCH)
    await agent.close()
  })
})
