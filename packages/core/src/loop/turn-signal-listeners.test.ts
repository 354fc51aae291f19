// The loop waits on a turn's abort through its TurnAbort (when-aborted.ts), never by adding
// listeners to the turn's AbortSignal: in Node 20 each listener on a signal (and each entry of a
// weak table keyed by it) is per-turn cost that f9f2264 and 939ac69 removed. A call site that
// passed `abort.signal` instead of the TurnAbort would still work — through the foreign-signal
// path — and bring that cost back without failing any other test; this one would fail.
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../create-agent.js'
import type { ModelAdapter, ModelChunk } from '../model.js'
import type { Tool } from '../tools/types.js'

const original = AbortSignal.prototype.addEventListener
afterEach(() => {
  AbortSignal.prototype.addEventListener = original
})

describe("a turn's signal", () => {
  it('gets no listener from the core across a turn with a tool and async taps on every racing hook', async () => {
    const turnSignals = new Set<AbortSignal>()
    let step = 0
    const model: ModelAdapter = {
      name: 'probe',
      async *stream(_request, { signal }): AsyncIterable<ModelChunk> {
        turnSignals.add(signal)
        if (step++ === 0) {
          yield { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'echo', argumentsDelta: '{"text":"hi"}' }
          yield { type: 'finish', reason: 'tool-calls' }
        } else {
          yield { type: 'text-delta', text: 'done' }
          yield { type: 'finish', reason: 'stop' }
        }
      },
    }
    const echo: Tool = {
      name: 'echo',
      description: 'Echoes its text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async (args: { text: string }, { signal }: { signal: AbortSignal }) => {
        turnSignals.add(signal)
        return args.text
      },
    } as Tool
    const agent = await createAgent({ model, tools: [echo] })
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve))
    agent.hooks.preStep.tapPromise('probe', async (decision) => (await tick(), decision))
    agent.hooks.prepareCall.tapPromise('probe', async (request) => (await tick(), request))
    agent.hooks.llmStream.tapPromise('probe', async (stream) => (await tick(), stream))
    agent.hooks.toolResult.tapPromise('probe', async (result) => (await tick(), result))

    const added: AbortSignal[] = []
    AbortSignal.prototype.addEventListener = function (this: AbortSignal, ...args: Parameters<AbortSignal['addEventListener']>) {
      added.push(this)
      return original.apply(this, args)
    } as AbortSignal['addEventListener']
    agent.followup('hello')
    await agent.whenIdle()
    AbortSignal.prototype.addEventListener = original

    expect(agent.session.events.filter((event) => event.type === 'tool/result')).toHaveLength(1)
    expect(agent.session.last?.type).toBe('turn/end')
    expect(turnSignals.size).toBe(1) // the adapter's two calls and the tool saw the turn's one signal
    const [signal] = turnSignals
    expect(added.filter((target) => target === signal)).toEqual([])
    await agent.close()
  })
})
