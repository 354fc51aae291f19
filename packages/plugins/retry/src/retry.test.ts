import { describe, expect, it } from 'vitest'
import { createAgent, definePlugin, isEvent, memoryStore, Stage } from '@bosun/core'
import type { ModelAdapter, ModelChunk } from '@bosun/core'
import { testPlugin } from '@bosun/testkit'
import retry from './index.js'

const fast = { minDelayMs: 0, maxDelayMs: 1000 }

describe('retry', () => {
  it('a 429 is retried in the same step after the wait the provider asked for, then the turn completes', async () => {
    const kit = await testPlugin(retry, { minDelayMs: 1 }, { responses: [{ error: { status: 429, retryAfterMs: 30 } }, { text: 'ok' }] })
    const started = Date.now()
    const turn = await kit.send('hi')
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      llm/retry 1.1 attempt=2 delay=30ms RATE_LIMIT
      assistant/message "ok"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    const retried = kit.events.find((e) => isEvent(e, 'llm/retry'))
    expect(retried?.data).toMatchObject({ turn: 1, step: 1, attempt: 2, delayMs: 30, error: { code: 'RATE_LIMIT', status: 429, retryAfterMs: 30 } })
    expect(kit.model.requests).toBe(2)
  })

  it('server errors that exhaust maxAttempts end the turn with the last error', async () => {
    const kit = await testPlugin(retry, { ...fast, maxAttempts: 3 }, {
      responses: [{ error: { status: 500 } }, { error: { status: 503 } }, { error: { status: 408 } }, { text: 'never sent' }],
    })
    const turn = await kit.send('hi')
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      llm/retry 1.1 attempt=2 delay=0ms SERVER
      llm/retry 1.1 attempt=3 delay=0ms SERVER
      step/end 1.1 error
      turn/end 1 error TIMEOUT"
    `)
    expect(turn.error).toMatchObject({ code: 'TIMEOUT', status: 408 })
    expect(kit.model.requests).toBe(3)
  })

  it('an authentication error is not retried', async () => {
    const kit = await testPlugin(retry, fast, { responses: [{ error: { status: 401 } }, { text: 'never sent' }] })
    const turn = await kit.send('hi')
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      step/end 1.1 error
      turn/end 1 error AUTH"
    `)
    expect(kit.model.requests).toBe(1)
  })

  it('an invalid request is not retried by default, and is when retryOn lists INVALID_REQUEST', async () => {
    const plain = await testPlugin(retry, fast, { responses: [{ error: { status: 400 } }, { text: 'ok' }] })
    expect((await plain.send('hi')).end).toMatchObject({ kind: 'error', error: { code: 'INVALID_REQUEST' } })
    const opted = await testPlugin(retry, { ...fast, retryOn: ['INVALID_REQUEST'] }, { responses: [{ error: { status: 400 } }, { text: 'ok' }] })
    const turn = await opted.send('hi')
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      llm/retry 1.1 attempt=2 delay=0ms INVALID_REQUEST
      assistant/message "ok"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
  })

  it('retryOn replaces the default list: a 503 is not retried when only RATE_LIMIT is listed', async () => {
    const kit = await testPlugin(retry, { ...fast, retryOn: ['RATE_LIMIT'] }, { responses: [{ error: { status: 503 } }, { text: 'ok' }] })
    expect((await kit.send('hi')).end).toMatchObject({ kind: 'error', error: { code: 'SERVER' } })
    expect(kit.model.requests).toBe(1)
  })

  it('a transient code the adapter marks retryable: false (an exhausted quota) is not retried', async () => {
    const kit = await testPlugin(retry, fast, { responses: [{ error: { status: 429, retryable: false } }, { text: 'ok' }] })
    expect((await kit.send('hi')).end).toMatchObject({ kind: 'error', error: { code: 'RATE_LIMIT' } })
    expect(kit.model.requests).toBe(1)
  })

  it('a provider asking for a longer wait than maxDelayMs is not retried: the turn ends with its retryAfterMs', async () => {
    const kit = await testPlugin(retry, { maxDelayMs: 1000 }, { responses: [{ error: { status: 429, retryAfterMs: 5000 } }, { text: 'ok' }] })
    const turn = await kit.send('hi')
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      step/end 1.1 error
      turn/end 1 error RATE_LIMIT"
    `)
    expect(turn.error).toMatchObject({ code: 'RATE_LIMIT', retryAfterMs: 5000 })
  })

  it('an abort during the backoff wait ends the turn aborted and sends no further request', async () => {
    // A minute's wait, longer than the test may take: the turn ends in time only if the abort ends
    // the wait (no wall-clock bound, which a busy machine could break).
    const kit = await testPlugin(retry, {}, { responses: [{ error: { status: 429, retryAfterMs: 60_000 } }, { text: 'never sent' }] })
    kit.agent.hooks.event.tap('test', (event) => {
      if (event.type === 'llm/retry') queueMicrotask(() => kit.agent.abort('user'))
    })
    const turn = await kit.send('hi')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(turn.timeline).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      llm/retry 1.1 attempt=2 delay=60000ms RATE_LIMIT
      step/end 1.1 aborted
      turn/end 1 aborted (user)"
    `)
    expect(kit.model.requests).toBe(1)
  })

  it('the chunks of a failed attempt stay in the log but never reach the history', async () => {
    const kit = await testPlugin(retry, fast, {
      responses: [{ text: 'partial answer', chunkSize: 4, error: { status: 503 } }, { text: 'clean answer', chunkSize: 5 }],
    })
    const turn = await kit.send('hi')
    expect(kit.timeline({ chunks: true })).toMatchInlineSnapshot(`
      "splice next-turn @0 +["hi"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "hi"
      assistant/chunk {"type":"text-delta","text":"part"}
      assistant/chunk {"type":"text-delta","text":"ial "}
      assistant/chunk {"type":"text-delta","text":"answ"}
      assistant/chunk {"type":"text-delta","text":"er"}
      llm/retry 1.1 attempt=2 delay=0ms SERVER
      assistant/chunk {"type":"text-delta","text":"clean"}
      assistant/chunk {"type":"text-delta","text":" answ"}
      assistant/chunk {"type":"text-delta","text":"er"}
      assistant/chunk {"type":"finish","reason":"stop"}
      assistant/message "clean answer"
      step/end 1.1 stop
      turn/end 1 completed"
    `)
    expect(turn.reply).toBe('clean answer')
    expect(kit.agent.surface.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'clean answer' }] })
    expect(kit.model.recorded[1]?.messages.map((m) => m.role)).toEqual(['user'])
  })

  it('wraps closest to the adapter: an output filter at a later stage sees the retried attempt too', async () => {
    const shout = definePlugin({
      name: 'shout',
      setup({ hooks, name }) {
        hooks.llmStream.tap({ name, stage: Stage.normal }, (stream) =>
          (async function* () {
            for await (const chunk of stream) yield chunk.type === 'text-delta' ? { ...chunk, text: chunk.text.toUpperCase() } : chunk
          })(),
        )
      },
    })
    // The filter is listed first; the stage, not the order, puts retry inside it.
    const kit = await testPlugin(retry, fast, {
      plugins: [shout],
      responses: [{ text: 'partial', error: { status: 502 } }, { text: 'clean answer' }],
    })
    expect((await kit.send('hi')).reply).toBe('CLEAN ANSWER')
  })

  it('a seeded jitter gives the documented waits: uniform in [minDelayMs, min(maxDelayMs, minDelayMs × 2ⁿ)]', async () => {
    const kit = await testPlugin(retry, { minDelayMs: 10, maxDelayMs: 60, random: () => 0.5 }, {
      responses: [{ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } }, { text: 'ok' }],
    })
    await kit.send('hi')
    expect(kit.events.filter((e) => isEvent(e, 'llm/retry')).map((e) => e.data.delayMs)).toEqual([15, 25, 35])
  })

  describe('empty responses', () => {
    /** An adapter whose first `empties` requests end without a single chunk. */
    function emptyThenText(empties: number): ModelAdapter & { requests: number } {
      return {
        name: 'flaky',
        requests: 0,
        stream() {
          const n = ++this.requests
          return (async function* (): AsyncGenerator<ModelChunk> {
            if (n <= empties) return
            yield { type: 'text-delta', text: 'finally' }
            yield { type: 'finish', reason: 'stop' }
          })()
        },
      }
    }

    it('an attempt that ends without any chunk is retried as EMPTY_RESPONSE', async () => {
      const model = emptyThenText(1)
      const agent = await createAgent({ model, store: memoryStore(), plugins: [[retry, fast]] })
      agent.followup('hi')
      await agent.whenIdle()
      expect(agent.session.events.filter((e) => e.type === 'llm/retry').map((e) => e.data)).toMatchObject([
        { attempt: 2, error: { code: 'EMPTY_RESPONSE' } },
      ])
      expect(agent.session.events.at(-1)?.data).toEqual({ turn: 1, reason: { kind: 'completed' } })
      expect(model.requests).toBe(2)
    })

    it('when the attempts run out, the turn ends with the core EMPTY_RESPONSE error', async () => {
      const model = emptyThenText(5)
      const agent = await createAgent({ model, plugins: [[retry, { ...fast, maxAttempts: 2 }]] })
      agent.followup('hi')
      await agent.whenIdle()
      expect(agent.session.events.at(-1)?.data).toMatchObject({ reason: { kind: 'error', error: { code: 'EMPTY_RESPONSE' } } })
      expect(model.requests).toBe(2)
    })

    it('is left to the core when retryOn does not list EMPTY_RESPONSE', async () => {
      const model = emptyThenText(1)
      const agent = await createAgent({ model, plugins: [[retry, { ...fast, retryOn: ['SERVER'] }]] })
      agent.followup('hi')
      await agent.whenIdle()
      expect(agent.session.events.at(-1)?.data).toMatchObject({ reason: { kind: 'error', error: { code: 'EMPTY_RESPONSE' } } })
      expect(model.requests).toBe(1)
    })
  })
})
