// The contract a retry plugin relies on: after it logs `llm/retry` and streams a fresh attempt,
// the failed attempt's chunks stay in the log but never reach the assembled message.
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
