import { describe, it } from 'vitest'
import fc from 'fast-check'
import { createAgent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import retry from '@bosun/plugin-retry'
import { deliveryAnswer, deliveryOpWith, nextMacrotask, runAndCrash, type MakeAgent } from '../../../core/src/testing/delivery.js'
import compaction from './index.js'

// The core's delivery rules (core/src/testing/delivery.ts) with compaction and retry in the loop:
// summaries written before a request over a small context window (with the agent's own scripted
// model, which also answers some with a tool call: a failed summary), a context-window error
// compacted and sent again, rate limits and a failing stream retried, `agent.compact()` between or
// during turns (maintenance, and the wake it may latch) — all beside random sends, aborts, cancels
// and a crash cut at any event. None of it may deliver input twice or lose it.

const failures: fc.Arbitrary<ScriptedResponse> = fc.constantFrom<ScriptedResponse>(
  { error: { status: 429, retryAfterMs: 1 } },
  { text: 'half an answ', error: { status: 503 } },
  { error: { status: 400, code: 'CONTEXT_WINDOW_EXCEEDED' } },
  { text: 'A short summary.' },
)
const answers = fc.array(fc.oneof({ weight: 3, arbitrary: deliveryAnswer }, { weight: 2, arbitrary: failures }), { minLength: 1, maxLength: 5 })

function agentOn(script: readonly ScriptedResponse[], contextWindow: number): MakeAgent {
  return (store, sessionId) => {
    let request = 0
    const model = scripted({ responses: Array.from({ length: 600 }, () => () => script[request++ % script.length]!) })
    const echo = {
      name: 'echo', description: 'echo', parameters: { type: 'object' },
      execute: async () => {
        await nextMacrotask()
        return 'echoed'
      },
    }
    return createAgent({
      model, store, sessionId, tools: [echo], logPages: false,
      plugins: [[retry, { maxAttempts: 3, minDelayMs: 0, maxDelayMs: 2 }], [compaction, { contextWindow, thresholdRatio: 0.8, retainRatio: 0.25 }]],
    })
  }
}

describe('compaction and retry keep the delivery rules', () => {
  it('no input delivered twice or lost, across summaries, retries, agent.compact(), aborts, cancels and a crash at any event', { timeout: 120_000 }, async () => {
    const custom = {
      // Its promise settles false or rejects when the agent is busy or closed: the rules are what is checked here.
      compact: (agent: { compact(): Promise<boolean> }) => void agent.compact().catch(() => {}),
    }
    await fc.assert(
      fc.asyncProperty(fc.array(deliveryOpWith(['compact']), { maxLength: 12 }), answers, fc.nat(), fc.integer({ min: 64, max: 400 }), async (ops, script, cutAt, contextWindow) => {
        await runAndCrash(agentOn(script, contextWindow), ops, cutAt, { custom: custom as never })
      }),
      { numRuns: 80 },
    )
  })
})
