import { describe, it } from 'vitest'
import fc from 'fast-check'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { definePlugin } from '../plugin.js'
import type { memoryStore } from '../store/memory.js'
import { deliveryAnswer, deliveryOp, nextMacrotask, runAndCrash, type MakeAgent } from '../testing/delivery.js'
import { tool } from '../testing/tools.js'
import type { Agent } from './agent.js'

// The loop's delivery rules (testing/delivery.ts says which) as a property over random runs of the
// bare loop, then with a slow pre-step that may reject, a slow system prompt and model errors.

/**
 * With `preSteps` (one decision per step, cycled): a pre-step plugin that waits a macrotask and
 * enters or rejects, and a system prompt function that waits too — the await points where an abort
 * can land between a claim and its step.
 */
function agentOn(answers: readonly ScriptedResponse[], preSteps?: readonly ('enter' | 'reject')[]): MakeAgent {
  return (store, sessionId) => build(store, sessionId, answers, preSteps)
}

function build(store: ReturnType<typeof memoryStore>, sessionId: string, answers: readonly ScriptedResponse[], preSteps?: readonly ('enter' | 'reject')[]): Promise<Agent> {
  let request = 0
  const model = scripted({ responses: Array.from({ length: 400 }, () => () => answers[request++ % answers.length]!) })
  const echo = tool('echo', async () => {
    await nextMacrotask()
    return 'echoed'
  })
  if (preSteps === undefined) return createAgent({ model, store, sessionId, tools: [echo], logPages: false })
  let step = 0
  const gatekeeper = definePlugin({
    name: 'gatekeeper',
    setup({ hooks }) {
      hooks.preStep.tapPromise('gatekeeper', async (decision) => {
        await nextMacrotask()
        return preSteps[step++ % preSteps.length] === 'reject' ? { kind: 'reject', by: 'gatekeeper', metadata: null } : decision
      })
    },
  })
  const system = async () => {
    await Promise.resolve()
    return 'You are a test.'
  }
  return createAgent({ model, store, sessionId, tools: [echo], plugins: [gatekeeper], system, logPages: false })
}

describe('delivery: every message reaches the model at most once, and after a drain exactly once unless canceled or stopped', () => {
  it('holds for random sends, aborts and cancels at any point, and for a crash at any event', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(deliveryOp, { maxLength: 14 }), fc.array(deliveryAnswer, { minLength: 1, maxLength: 4 }), fc.nat(), async (ops, answers, cutAt) => {
        await runAndCrash(agentOn(answers), ops, cutAt)
      }),
      { numRuns: 100 },
    )
  })

  it('holds with a slow pre-step that may reject, a slow system prompt and model errors', { timeout: 120_000 }, async () => {
    const withErrors = fc.oneof({ weight: 4, arbitrary: deliveryAnswer }, { weight: 1, arbitrary: fc.constant<ScriptedResponse>({ text: 'half', error: { status: 503 } }) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(deliveryOp, { maxLength: 14 }), fc.array(withErrors, { minLength: 1, maxLength: 4 }), fc.nat(),
        fc.array(fc.constantFrom<'enter' | 'reject'>('enter', 'enter', 'reject'), { minLength: 1, maxLength: 4 }),
        async (ops, answers, cutAt, preSteps) => {
          await runAndCrash(agentOn(answers, preSteps), ops, cutAt)
        },
      ),
      { numRuns: 200 },
    )
  })
})
