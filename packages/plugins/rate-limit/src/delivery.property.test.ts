import { describe, it } from 'vitest'
import fc from 'fast-check'
import { createAgent, type Agent, type SessionEvent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { deliveryAnswer, deliveryOp, nextMacrotask, runAndCrash, type MakeAgent } from '../../../core/src/testing/delivery.js'
import rateLimit, { type Options } from './index.js'

// The core's delivery rules (core/src/testing/delivery.ts) with this plugin in the loop: a step
// over the limit is rejected (its input consumed), delayed (an abort can land in the wait) or
// rejected and requeued (its input comes back under its own ids when the window allows, also after
// a crash cut anywhere, and a cancel drops it). Short windows on the real clock: every timing the
// runs happen to take must keep the rules.

const options: fc.Arbitrary<Options> = fc.record({
  turnsPerMinute: fc.integer({ min: 1, max: 2 }),
  windowMs: fc.integer({ min: 2, max: 15 }),
  onLimit: fc.constantFrom('reject' as const, 'delay' as const, 'requeue' as const, 'requeue' as const),
})

/** Ids logged as requeued (rejected, to come back) that are neither back in a queue nor dropped by a cancel. */
function outstanding(events: readonly SessionEvent[]): Set<string> {
  const owed = new Set<string>()
  for (const event of events) {
    const data = event.data as { messages?: { id: string }[]; ids?: string[]; inserted?: { id: string }[] }
    if (event.type === 'rate-limit/requeued') for (const m of data.messages ?? []) owed.add(m.id)
    else if (event.type === 'rate-limit/requeue-canceled') for (const id of data.ids ?? []) owed.delete(id)
    else if (event.type === 'agent/inbox/spliced') for (const m of data.inserted ?? []) owed.delete(m.id)
  }
  return owed
}

function givenBack(events: readonly SessionEvent[]): Set<string> {
  const ids = new Set<string>()
  for (const event of events) {
    if (event.type === 'rate-limit/requeued') for (const m of (event.data as { messages: { id: string }[] }).messages) ids.add(m.id)
  }
  return ids
}

/**
 * Waits until every requeue has come back (or was canceled) and the turns it woke have run: a
 * condition, not a delay. A requeue is due within a window (15 ms at most here): nothing appended
 * for 10 s while one is owed means it will never come back, and the run fails saying so.
 */
async function settle(agent: Agent): Promise<void> {
  for (;;) {
    await agent.whenIdle()
    const owed = outstanding(agent.session.events)
    if (owed.size === 0) return
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        off()
        reject(new Error(`requeued input never came back: ${[...owed].join(', ')}`))
      }, 10_000)
      const off = agent.session.subscribe(() => {
        clearTimeout(timer)
        off()
        resolve()
      })
    })
  }
}

function agentOn(answers: readonly ScriptedResponse[], limit: Options): MakeAgent {
  return (store, sessionId) => {
    let request = 0
    const model = scripted({ responses: Array.from({ length: 400 }, () => () => answers[request++ % answers.length]!) })
    const echo = {
      name: 'echo', description: 'echo', parameters: { type: 'object' },
      execute: async () => {
        await nextMacrotask()
        return 'echoed'
      },
    }
    return createAgent({ model, store, sessionId, tools: [echo], plugins: [[rateLimit, limit]], logPages: false })
  }
}

describe('rate-limit keeps the delivery rules', () => {
  it('no input delivered twice or lost, across rejects, delays, requeues, aborts, cancels and a crash at any event', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(deliveryOp, { maxLength: 10 }), fc.array(deliveryAnswer, { minLength: 1, maxLength: 3 }), fc.nat(), options, async (ops, answers, cutAt, limit) => {
        await runAndCrash(agentOn(answers, limit), ops, cutAt, { settle, givenBack })
      }),
      // No shrinking: runs on the real clock do not replay exactly, and a stuck requeue costs a 10 s wait per try.
      { numRuns: 150, endOnFailure: true },
    )
  })
})
