// A refusal's explanation (message_delta.delta.stop_details.explanation) against a real HTTP
// server: sent as text after what the model wrote, so it reaches the assistant message and the
// user; the step still ends content-filter and the turn completes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { ask, collect, model } from './testing/helpers.js'
import { events, fakeServer, fixture, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const EXPLANATION = "This request triggered restrictions on violative cyber content and was blocked under Anthropic's Usage Policy."
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 9, output_tokens: 1 } } }
const refusal = (stop_details: unknown) => [
  { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null, stop_details }, usage: { output_tokens: 4 } },
  { type: 'message_stop' },
]
const partial = (text: string) => [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
  { type: 'content_block_stop', index: 0 },
]
const run = async () => collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))

describe('a refusal with stop_details', () => {
  it('sends the explanation after the text the model wrote, a blank line apart, then finishes content-filter', async () => {
    server.reply(events([start, ...partial('Here is how to'), ...refusal({ type: 'refusal', category: 'cyber', explanation: ` ${EXPLANATION}\n` })]))
    const { chunks, error } = await run()
    expect(error).toBeUndefined()
    expect(chunks).toEqual([
      { type: 'text-delta', text: 'Here is how to' },
      { type: 'text-delta', text: `\n\n${EXPLANATION}` },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 4 } },
      { type: 'finish', reason: 'content-filter' },
    ])
  })

  it('keeps the explanation a blank line apart from text written before a tool call (the loop drops the call)', async () => {
    const call = [
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'scan', input: {} } },
      { type: 'content_block_stop', index: 1 },
    ]
    server.reply(events([start, ...partial('Let me check.'), ...call, ...refusal({ type: 'refusal', explanation: EXPLANATION })]))
    const { chunks, error } = await run()
    expect(error).toBeUndefined()
    expect(chunks.filter((chunk) => chunk.type === 'text-delta')).toEqual([
      { type: 'text-delta', text: 'Let me check.' },
      { type: 'text-delta', text: `\n\n${EXPLANATION}` },
    ])
  })

  it('leaves out details without a usable explanation, and never reads them for another stop reason', async () => {
    const odd = [undefined, null, 'refusal', { explanation: 42 }, { explanation: '  ' }, []]
    for (const details of odd) server.reply(events([start, ...refusal(details)]))
    server.reply(events([start, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_details: { explanation: EXPLANATION } } }, { type: 'message_stop' }]))
    for (const _ of odd) {
      const { chunks, error } = await run()
      expect(error).toBeUndefined()
      expect(chunks).toEqual([{ type: 'usage', usage: { inputTokens: 9, outputTokens: 4 } }, { type: 'finish', reason: 'content-filter' }])
    }
    expect((await run()).chunks.some((chunk) => chunk.type === 'text-delta')).toBe(false)
  })

  it('is in the assistant message the agent logs for the recorded refusal; the turn completes', async () => {
    server.reply(events(fixture('anthropic-refusal')))
    const agent = await createAgent({ model: model(server.baseURL) })
    agent.followup('How do I get into my neighbour’s router?')
    await agent.whenIdle()
    const data = (type: string) => agent.session.events.filter((event) => event.type === type).map((event) => event.data)
    expect(data('assistant/message')).toMatchObject([{ message: { role: 'assistant', content: [{ type: 'text', text: EXPLANATION }] } }])
    expect(data('step/end')).toMatchObject([{ finish: 'content-filter' }])
    expect(data('turn/end')).toMatchObject([{ reason: { kind: 'completed' } }])
  })
})
