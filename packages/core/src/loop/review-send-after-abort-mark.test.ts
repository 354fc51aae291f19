// Review of 2d59179 (the send's delivery check): `source.afterAbort` is the agent's record that a
// waking send came after the running turn was aborted, and crash repair reads it to owe that input
// a wake (store/repair.ts). A caller-set value used to be kept: a follow-up saying `afterAbort:
// true`, sent while the turn ran and then parked by a Stop, was woken after a crash although the
// live agent had parked it. Whether a send came after an abort is known only at its splice, so a
// caller's value can only be a copy (deriveUserMessage, a spread of a logged message): refused,
// whatever it says, as a disagreeing delivery is.
import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { ErrorCodes } from '../errors.js'
import { createUserMessage, deriveUserMessage, messageText } from '../session/messages.js'
import { memoryStore } from '../store/memory.js'
import { nextEvent } from '../testing/agent-probes.js'
import { thrown } from '../testing/errors.js'
import { preStepThatNeverReturns } from '../testing/hold-steps.js'

const METHODS = ['followup', 'steer', 'inject'] as const

/** The next turn/start in the log (a condition, not a delay). */
const turnStart = (agent: Awaited<ReturnType<typeof createAgent>>) => nextEvent(agent, (event) => event.type === 'turn/start')

describe('a send whose message already carries source.afterAbort', () => {
  for (const method of METHODS) {
    for (const value of [true, false]) {
      it(`${method}() of a message saying afterAbort: ${value} is refused and changes nothing`, async () => {
        const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
        const before = agent.session.length
        const message = createUserMessage('m', { id: 'm1', source: { kind: 'user', delivery: method, afterAbort: value } })
        const error = thrown(() => agent[method](message))
        expect(error.code).toBe(ErrorCodes.DELIVERY_MISMATCH)
        expect(error.details).toEqual({ id: 'm1', afterAbort: value })
        expect(error.message).toContain('leave source.afterAbort unset')
        expect(agent.session.length).toBe(before)
        expect(agent.inbox.hasPending).toBe(false)
        expect(agent.status).toBe('idle')
        await agent.close()
      })
    }
  }

  it('is refused after a Stop too, when the agent would record afterAbort itself (a copy is never the send\'s own)', async () => {
    const agent = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
    const first = turnStart(agent)
    agent.followup('first')
    await first
    agent.abort('stop')
    const error = thrown(() => agent.followup(createUserMessage('late', { id: 'late', source: { kind: 'user', afterAbort: true } })))
    expect(error.code).toBe(ErrorCodes.DELIVERY_MISMATCH)
    // Unset, the agent records it (and runs a turn for it, as before).
    const second = turnStart(agent)
    const sent = agent.followup(createUserMessage('late', { id: 'late', source: { kind: 'user' } }))
    expect(sent.source).toEqual({ kind: 'user', delivery: 'followup', afterAbort: true })
    await second
    agent.abort('done')
    await agent.whenIdle()
    await agent.close()
  })

  it('a plugin re-sending a derived copy of an after-abort send is told to set the source itself; a crash then leaves the Stop\'s parking in force', async () => {
    const store = memoryStore()
    const live = await createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()], store, sessionId: 'copy' })
    const first = turnStart(live)
    live.followup('first')
    await first
    live.abort('stop')
    const second = turnStart(live)
    const original = live.followup('after stop') // the agent records afterAbort: true
    await second // turn 2 runs it, held in its pre-step
    expect(original.source.afterAbort).toBe(true)
    // A plugin sends a rewrite of it during turn 2 (the turn is not aborted): the copy says afterAbort.
    const copy = deriveUserMessage(original, `again: ${messageText(original)}`, { id: 'copy-1' })
    expect(copy.source.afterAbort).toBe(true)
    expect(thrown(() => live.followup(copy)).code).toBe(ErrorCodes.DELIVERY_MISMATCH)
    const resent = live.followup(deriveUserMessage(original, `again: ${messageText(original)}`, { id: 'copy-1', source: { kind: 'user' } }))
    expect(resent.source.afterAbort).toBeUndefined()
    live.abort('stop again') // parks the re-sent follow-up (queued before this Stop)
    await live.whenIdle()
    await live.close()
    expect(live.session.events.filter((e) => e.type === 'turn/start')).toHaveLength(2)
    // A crash right here: the reopened agent must not run what the Stop parked.
    const reopened = await createAgent({ model: scripted(), store, sessionId: 'copy' })
    expect(reopened.inbox.nextTurn.map((m) => m.id)).toEqual(['copy-1'])
    expect(reopened.recovery.waiting).toBeUndefined()
    await reopened.close()
  })
})
