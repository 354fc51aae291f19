// A sent message's `source.delivery` is how it was sent, and crash recovery reads it to decide who
// is owed a wake (store/repair.ts): a send whose message says another delivery is refused, with
// nothing logged, queued or woken, so the caller keeps its message and can send it as it says.
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
type Method = (typeof METHODS)[number]

const held = () => createAgent({ model: scripted(), plugins: [preStepThatNeverReturns()] })
const saying = (id: string, delivery: string) => createUserMessage(id, { id, source: { kind: 'user', via: 'test', delivery } })

describe("a send whose message's source.delivery disagrees with the method", () => {
  for (const method of METHODS) {
    for (const said of [...METHODS.filter((m) => m !== method), 'email']) {
      it(`${method}() of a message saying delivery "${said}" is refused and changes nothing`, async () => {
        const agent = await held()
        const before = agent.session.length
        const message = saying('m1', said)
        const error = thrown(() => agent[method](message))
        expect(error.code).toBe(ErrorCodes.DELIVERY_MISMATCH)
        expect(error.details).toEqual({ id: 'm1', delivery: said, expected: method })
        // What was expected, and what to do.
        expect(error.message).toContain(`"${said}"`)
        expect(error.message).toContain(`${method}() records "${method}"`)
        expect(error.message).toContain(said === 'email' ? `Set it to "${method}"` : `Send it with agent.${said}()`)
        expect(agent.session.length).toBe(before)
        expect(agent.inbox.hasPending).toBe(false)
        expect(agent.status).toBe('idle')
        if (said !== 'email') {
          // Its id was not used: the method it names sends it, as it is.
          expect(agent[said as Method](message)).toBe(message)
          expect(agent.inbox.find('m1')?.message.source).toEqual({ kind: 'user', via: 'test', delivery: said })
        }
        agent.abort('done')
        await agent.whenIdle()
        await agent.close()
      })
    }
  }

  it('keeps a message whose delivery agrees with the method as it is (the host records its own)', async () => {
    const agent = await held()
    const sent = METHODS.map((method) => {
      const message = saying(method, method)
      expect(agent[method](message)).toBe(message)
      return message
    })
    expect([...agent.inbox.nextStep, ...agent.inbox.nextTurn].map((m) => m.source.delivery).sort()).toEqual([...METHODS].sort())
    expect(sent.every((m) => agent.inbox.find(m.id) !== undefined)).toBe(true)
    agent.abort('done')
    await agent.whenIdle()
    await agent.close()
  })

  it('after a Stop, a refused waking send latches no wake: the agent goes idle and runs no turn', async () => {
    const agent = await held()
    const claimed = nextEvent(agent, (event) => event.type === 'agent/inbox/spliced' && (event.data as InboxSplice).removedCount === 1)
    agent.followup('first')
    await claimed // turn 1 is open, held in its pre-step
    agent.abort('stop')
    const error = thrown(() => agent.steer(saying('late', 'inject')))
    expect(error.code).toBe(ErrorCodes.DELIVERY_MISMATCH)
    await agent.whenIdle()
    expect(agent.status).toBe('idle')
    expect(agent.turn).toBe(1)
    expect(agent.inbox.hasPending).toBe(false)
    expect(agent.session.events.some((e) => JSON.stringify(e.data).includes('"late"'))).toBe(false)
    await agent.close()
  })
})
