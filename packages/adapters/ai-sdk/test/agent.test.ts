// The adapter under a real agent: a tool call conversation through the Bosun loop.
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import type { Tool } from '@bosun/core'
import { authHint } from '../src/hints.js'
import { aiSdk } from '../src/index.js'
import { finishV2, finishV3, mockV2, mockV3 } from './mock-model.js'

const read: Tool<{ path: string }> = {
  name: 'read',
  description: 'Read a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
  execute: ({ path }) => `contents of ${path}`,
}

describe('through an agent', () => {
  it('runs a tool call; the second prompt pairs the assistant tool call with its result by id', async () => {
    const model = mockV2({
      provider: 'openai.chat',
      modelId: 'gpt-test',
      responses: [
        [
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Let me read it.' },
          { type: 'text-end', id: 't' },
          { type: 'tool-input-start', id: 'call_abc', toolName: 'read' },
          { type: 'tool-input-delta', id: 'call_abc', delta: '{"path":' },
          { type: 'tool-input-delta', id: 'call_abc', delta: '"a.txt"}' },
          { type: 'tool-input-end', id: 'call_abc' },
          { type: 'tool-call', toolCallId: 'call_abc', toolName: 'read', input: '{"path":"a.txt"}' },
          finishV2('tool-calls', { inputTokens: 20, outputTokens: 9 }),
        ],
        [
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'It says: contents of a.txt' },
          { type: 'text-end', id: 't' },
          finishV2('stop', { inputTokens: 40, outputTokens: 8 }),
        ],
      ],
    })
    const agent = await createAgent({ model: aiSdk({ model, maxTokens: 512 }), system: 'You read files.', tools: [read] })
    agent.followup('What is in a.txt?')
    await agent.whenIdle()

    expect(model.calls).toHaveLength(2)
    expect(model.calls[1]!.prompt).toMatchInlineSnapshot(`
      [
        {
          "content": "You read files.",
          "role": "system",
        },
        {
          "content": [
            {
              "text": "What is in a.txt?",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "Let me read it.",
              "type": "text",
            },
            {
              "input": {
                "path": "a.txt",
              },
              "toolCallId": "call_abc",
              "toolName": "read",
              "type": "tool-call",
            },
          ],
          "role": "assistant",
        },
        {
          "content": [
            {
              "output": {
                "type": "text",
                "value": "contents of a.txt",
              },
              "toolCallId": "call_abc",
              "toolName": "read",
              "type": "tool-result",
            },
          ],
          "role": "tool",
        },
      ]
    `)
    expect(model.calls[1]!.maxOutputTokens).toBe(512)
    expect(model.calls[1]!.tools?.map((tool) => tool.name)).toEqual(['read'])

    const events = agent.session.events
    expect(events.find((e) => e.type === 'request/header')?.data).toMatchObject({ adapter: 'ai-sdk', model: 'openai.chat:gpt-test' })
    const last = events.filter((e) => e.type === 'assistant/message').at(-1)?.data as { message: unknown; usage: unknown }
    expect(last).toMatchObject({
      message: { role: 'assistant', content: [{ type: 'text', text: 'It says: contents of a.txt' }] },
      usage: { inputTokens: 40, outputTokens: 8 },
    })
    expect(events.find((e) => e.type === 'turn/end')?.data).toMatchObject({ reason: { kind: 'completed' } })
  })

  it('keeps Anthropic reasoning with its signature and sends it back on the next step (V3)', async () => {
    const model = mockV3({
      provider: 'anthropic.messages',
      responses: [
        [
          { type: 'reasoning-start', id: '0' },
          { type: 'reasoning-delta', id: '0', delta: 'I should read a.txt.' },
          { type: 'reasoning-delta', id: '0', delta: '', providerMetadata: { anthropic: { signature: 'SIG' } } },
          { type: 'reasoning-end', id: '0' },
          { type: 'tool-input-start', id: 'toolu_1', toolName: 'read' },
          { type: 'tool-input-delta', id: 'toolu_1', delta: '{"path":"a.txt"}' },
          { type: 'tool-input-end', id: 'toolu_1' },
          { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read', input: '{"path":"a.txt"}' },
          finishV3('tool-calls'),
        ],
        [{ type: 'text-delta', id: '1', delta: 'Done.' }, finishV3('stop')],
      ],
    })
    const agent = await createAgent({ model: aiSdk({ model }), tools: [read] })
    agent.followup('read a.txt')
    await agent.whenIdle()
    expect(model.calls[1]!.prompt[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should read a.txt.', providerOptions: { anthropic: { signature: 'SIG' } } },
        { type: 'tool-call', toolCallId: 'toolu_1', toolName: 'read', input: { path: 'a.txt' } },
      ],
    })
  })

  it('ends the turn with an error when the provider fails', async () => {
    const failure = Object.assign(new Error('Invalid API key'), { name: 'AI_APICallError', statusCode: 401, isRetryable: false })
    const model = mockV2({ responses: [{ throws: failure }] })
    const agent = await createAgent({ model: aiSdk({ model }) })
    agent.followup('hi')
    await agent.whenIdle()
    expect(agent.session.events.find((e) => e.type === 'turn/end')?.data).toMatchObject({
      reason: { kind: 'error', error: { code: 'AUTH', status: 401, message: `mock.chat answered HTTP 401: Invalid API key${authHint('mock.chat')}` } },
    })
  })
})
