// Contracts the marketplace plugins rely on: retry (an `llm/retry` resets the assembled message;
// the failed attempt stays in the log only), compaction (`agent.compact()`), reasoning blocks.
import { expect, it } from 'vitest'
import { definePlugin } from '../plugin.js'
import { serializeError } from '../errors.js'
import { harness } from '../testing/harness.js'
import type { ModelChunk } from '../model.js'

it('an llm/retry appended inside the llm/stream wrapper resets the assembled message to the new attempt', async () => {
  const retryOnce = definePlugin({
    name: 'retry-once',
    setup({ hooks }) {
      hooks.llmStream.tap('retry-once', (stream, context) => {
        return (async function* (): AsyncGenerator<ModelChunk> {
          try {
            yield* stream
          } catch (error) {
            context.session.append('llm/retry', { turn: context.turn, step: context.step, attempt: 2, delayMs: 0, error: serializeError(error) })
            yield* context.open()
          }
        })()
      })
    },
  })
  const { agent, timeline: tl } = await harness({
    plugins: [retryOnce],
    responses: [{ text: 'partial answer', chunkSize: 4, error: { status: 503 } }, { text: 'clean answer' }],
  })
  agent.followup('go')
  await agent.whenIdle()
  expect(tl()).toMatchInlineSnapshot(`
    "splice next-turn @0 +["go"]
    turn/start 1
    splice next-turn @0 -1
    step/start 1.1
    user/message "go"
    llm/retry 1.1 attempt=2 delay=0ms SERVER
    assistant/message "clean answer"
    step/end 1.1 stop
    turn/end 1 completed"
  `)
  expect(agent.surface.messages.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'clean answer' }] })
  expect(agent.session.events.filter((e) => e.type === 'assistant/chunk').length).toBeGreaterThan(2)
})

it('a signature closes a reasoning block: two consecutive signed blocks stay two blocks', async () => {
  const { BlockAssembler } = await import('./assembler.js')
  const assembler = new BlockAssembler('call')
  assembler.push({ type: 'reasoning-delta', text: 'first ', provider: 'anthropic' })
  assembler.push({ type: 'reasoning-delta', text: 'thought' })
  assembler.push({ type: 'reasoning-delta', text: '', signature: 'sig-1' })
  assembler.push({ type: 'reasoning-delta', text: 'second thought', provider: 'anthropic' })
  assembler.push({ type: 'reasoning-delta', text: '', signature: 'sig-2' })
  assembler.push({ type: 'text-delta', text: 'answer' })
  expect(assembler.message(false).content).toEqual([
    { type: 'reasoning', text: 'first thought', provider: 'anthropic', signature: 'sig-1' },
    { type: 'reasoning', text: 'second thought', provider: 'anthropic', signature: 'sig-2' },
    { type: 'text', text: 'answer' },
  ])
})

it('agent.compact() runs the agent/compact hook as maintenance, and refuses without a compaction plugin', async () => {
  const { harness: make } = await import('../testing/harness.js')
  const { BosunError } = await import('../errors.js')
  const bare = (await make()).agent
  await expect(bare.compact()).rejects.toSatisfy((e) => BosunError.is(e, 'NO_COMPACTION'))
  const { agent } = await make()
  const seen: { reason: string; status: string; adapter: string }[] = []
  agent.hooks.compact.tapPromise('test-compaction', async (context) => {
    seen.push({ reason: context.reason, status: agent.status, adapter: context.adapter.name })
    return true
  })
  expect(await agent.compact()).toBe(true)
  expect(seen).toEqual([{ reason: 'manual', status: 'idle', adapter: 'scripted' }])
})

it('an error that must not throw is reported through agent/error, or console.error when nothing taps it', async () => {
  const { harness: make } = await import('../testing/harness.js')
  const { agent } = await make()
  const logged: unknown[][] = []
  const original = console.error
  console.error = (...args: unknown[]) => void logged.push(args)
  try {
    agent.session.subscribe(() => {
      throw new Error('observer bug')
    })
    agent.followup('hi')
    await agent.whenIdle()
  } finally {
    console.error = original
  }
  expect(logged.length).toBeGreaterThan(0)
  expect(String(logged[0]![0])).toContain('session observer')
  const reported: string[] = []
  agent.hooks.error.tap('test', (_error, context) => void reported.push(context))
  agent.followup('again')
  await agent.whenIdle()
  expect(reported[0]).toMatch(/^session observer \(on "agent\/inbox\/spliced"\)$/)
})

it('a plugin can wake the agent for input it put back, read the agent clock, and tear down on close', async () => {
  const { harness: make } = await import('../testing/harness.js')
  const { createUserMessage } = await import('../session/messages.js')
  const seen: { now: number }[] = []
  let tornDown = 0
  let put: (() => void) | undefined
  const putBack = definePlugin({
    name: 'put-back',
    setup({ inbox, agent, now, onClose }) {
      seen.push({ now: now() })
      put = () => {
        inbox.splice('next-turn', 0, 0, [createUserMessage('put back', { id: 'back' })])
        agent.wake()
      }
      onClose(() => void tornDown++)
    },
  })
  const { agent } = await make({ plugins: [putBack], now: () => 42 })
  expect(seen).toEqual([{ now: 42 }])
  put!()
  expect(agent.status).toBe('running')
  await agent.whenIdle()
  expect(agent.session.events.some((e) => e.type === 'user/message' && (e.data as { id: string }).id === 'back')).toBe(true)
  agent.wake() // nothing pending: stays idle
  expect(agent.status).toBe('idle')
  await agent.close()
  expect(tornDown).toBe(1)
})

it('an options error thrown by setup reaches the caller unwrapped', async () => {
  const { createAgent } = await import('../create-agent.js')
  const { scripted } = await import('@bosun/adapter-scripted')
  const { BosunError, ErrorCodes } = await import('../errors.js')
  const picky = definePlugin({
    name: 'picky',
    setup() {
      throw new BosunError(ErrorCodes.PLUGIN_OPTIONS_INVALID, 'Invalid options for plugin "picky":\n  - $.pattern is not a valid regular expression')
    },
  })
  const error = await createAgent({ model: scripted(), plugins: [picky] }).catch((e: unknown) => e)
  expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
})

it('a throwing observer tap is reported and the taps after it still run (one plugin cannot blind another)', async () => {
  const { agent } = await harness({ responses: [{ text: 'ok' }] })
  const reported: string[] = []
  const logged: unknown[][] = []
  const original = console.error
  console.error = (...args: unknown[]) => void logged.push(args)
  try {
    agent.hooks.error.tap('broken-reporter', () => {
      throw new Error('reporter broke')
    })
    agent.hooks.error.tap('reporter', (_error, context) => void reported.push(context))
    agent.hooks.event.tap('buggy', (event) => {
      if (event.type === 'turn/start') throw new Error('observer bug')
    })
    const seen: string[] = []
    agent.hooks.event.tap('counter', (event) => void seen.push(event.type))
    agent.hooks.status.tap('buggy', () => {
      throw new Error('status bug')
    })
    const statuses: string[] = []
    agent.hooks.status.tap('ui', (status) => void statuses.push(status))
    agent.followup('hi')
    await agent.whenIdle()
    expect(seen).toContain('turn/start')
    expect(seen.at(-1)).toBe('turn/end')
    expect(statuses).toEqual(['running', 'idle'])
    expect(reported).toEqual(['"buggy" observing agent/status', '"buggy" observing session/event', '"buggy" observing agent/status'])
    // The reporter that threw went to console.error, each time, and did not stop the other reporter.
    expect(logged.map((args) => String(args[0]))).toEqual(Array(3).fill('[bosun] "broken-reporter" observing agent/error threw:'))
  } finally {
    console.error = original
  }
})
