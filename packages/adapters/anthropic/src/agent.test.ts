// The adapter under the real agent loop: what the Anthropic server receives on the next request
// (alternation, tool_result pairing, thinking passback), a provider swap in the middle of a
// session, failures and aborts as turn outcomes, and the key kept out of the log.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, memoryStore } from '@bosun/core'
import type { Agent, ModelAdapter, ModelChunk, Tool } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { KEY_ENV, model, SECRET, serverAt } from './testing/helpers.js'
import { events, fakeServer, fixture, frames, status, stream, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const read: Tool<{ path: string }> = {
  name: 'read',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: ({ path }) => `contents of ${path}: hello`,
}

const dataOf = <T>(agent: Agent, type: string): T[] => agent.session.events.filter((e) => e.type === type).map((e) => e.data as T)
const turnEnds = (agent: Agent) => dataOf<{ reason: unknown }>(agent, 'turn/end').map((data) => data.reason)

const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 20, output_tokens: 1 } } }
const stop = (reason: string) => [{ type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 7 } }, { type: 'message_stop' }]
const text = (index: number, value: string) => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index, delta: { type: 'text_delta', text: value } },
  { type: 'content_block_stop', index },
]
const answer = (value: string) => [start, ...text(0, value), ...stop('end_turn')]

describe('through createAgent', () => {
  it('logs thinking as a reasoning block with the full signature and provider anthropic, and passes it back unchanged', async () => {
    const thinking = fixture('anthropic-clear-thinking.1')
    const signature = thinking.map((event) => (event.delta as { signature?: string } | undefined)?.signature).find(Boolean)
    server.reply(stream(frames(thinking)), events(answer('Done.')))
    const agent = await createAgent({ model: model(server.baseURL) })
    agent.followup('What is 925 / 5?')
    await agent.whenIdle()
    agent.followup('Thanks!')
    await agent.whenIdle()
    const [first] = dataOf<{ message: unknown; usage: unknown }>(agent, 'assistant/message')
    expect(first).toMatchObject({
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185', signature, provider: 'anthropic' },
          { type: 'text', text: '925 ÷ 5 = 185' },
        ],
      },
      usage: { inputTokens: 69, cachedInputTokens: 0, outputTokens: 53 },
    })
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is 925 / 5?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185', signature },
          { type: 'text', text: '925 ÷ 5 = 185' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
    ])
  })

  it('answers a tool call with a valid next request: alternation, tool_result paired to tool_use, system on top, thinking kept', async () => {
    server.reply(
      events([
        start,
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'I need the file.' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2lnLXBhcnQtMQ==' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2lnLXBhcnQtMg==' } },
        { type: 'content_block_stop', index: 0 },
        ...text(1, 'Let me read it.'),
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_01A', name: 'read', input: {} } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path":' } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"a.txt"}' } },
        { type: 'content_block_stop', index: 2 },
        ...stop('tool_use'),
      ]),
      events(answer('It says hello.')),
    )
    const agent = await createAgent({ model: model(server.baseURL, { reasoningEffort: 'low' }), system: 'You read files.', tools: [read] })
    agent.followup('What does a.txt say?')
    await agent.whenIdle()
    expect(turnEnds(agent)).toEqual([{ kind: 'completed' }])
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]!.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "What does a.txt say?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "signature": "c2lnLXBhcnQtMQ==c2lnLXBhcnQtMg==",
                "thinking": "I need the file.",
                "type": "thinking",
              },
              {
                "text": "Let me read it.",
                "type": "text",
              },
              {
                "id": "toolu_01A",
                "input": {
                  "path": "a.txt",
                },
                "name": "read",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": [
                  {
                    "text": "contents of a.txt: hello",
                    "type": "text",
                  },
                ],
                "tool_use_id": "toolu_01A",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-test",
        "stream": true,
        "system": "You read files.",
        "thinking": {
          "budget_tokens": 1024,
          "type": "enabled",
        },
        "tools": [
          {
            "description": "Reads a file.",
            "input_schema": {
              "properties": {
                "path": {
                  "type": "string",
                },
              },
              "required": [
                "path",
              ],
              "type": "object",
            },
            "name": "read",
          },
        ],
      }
    `)
  })

  it('ends the turn with the typed error, and never writes the key to the log', async () => {
    server.reply(status(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'))
    server.reply(status(401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ${SECRET}"}}`))
    const agent = await createAgent({ model: model(server.baseURL) })
    agent.followup('one')
    await agent.whenIdle()
    agent.followup('two')
    await agent.whenIdle()
    expect(turnEnds(agent)).toEqual([
      { kind: 'error', error: { code: 'SERVER', message: `${serverAt(server.baseURL)} answered HTTP 529: Overloaded`, status: 529, retryable: true }, model: true },
      {
        kind: 'error',
        error: {
          code: 'AUTH',
          message: `${serverAt(server.baseURL)} answered HTTP 401: invalid x-api-key [redacted] (check that the environment variable ${KEY_ENV}, named by apiKeyEnv, holds a valid key for ${server.baseURL})`,
          status: 401,
          retryable: false,
        },
        model: true,
      },
    ])
    expect(JSON.stringify(agent.session.events)).not.toContain(SECRET)
    expect(JSON.stringify(agent.session.events)).not.toContain('SECRET-4242')
  })

  it('agent.abort() mid-stream ends the turn aborted, keeps the delivered text and closes the HTTP connection', async () => {
    server.reply(stream(frames(answer('partial answer')).slice(0, 3), { then: 'stall' }))
    const agent = await createAgent({ model: model(server.baseURL) })
    agent.hooks.event.tap('test', (event) => {
      if (event.type === 'assistant/chunk') agent.abort('stop')
    })
    agent.followup('go')
    await agent.whenIdle()
    expect(turnEnds(agent)).toEqual([{ kind: 'aborted', reason: 'stop' }])
    expect(dataOf(agent, 'assistant/message')).toEqual([
      { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'partial answer' }] }, interrupted: true },
    ])
    expect(await server.requests[0]!.closed).toEqual({ ended: false })
  })
})

/** The scripted model dressed as an OpenAI-compatible DeepSeek: its reasoning is tagged `deepseek`. */
function deepseekLike(): ModelAdapter {
  const inner = scripted({
    responses: [
      { reasoning: 'The user wants a.txt; call read.', text: 'Let me look.', toolCalls: [{ name: 'read', args: { path: 'a.txt' }, id: 'functions.read:0' }] },
      { reasoning: 'Summarise it.', text: 'a.txt says hello.' },
    ],
  })
  return {
    name: 'openai',
    model: 'deepseek-reasoner',
    async *stream(request, options): AsyncGenerator<ModelChunk> {
      for await (const chunk of inner.stream(request, options)) {
        yield chunk.type === 'reasoning-delta' ? { ...chunk, provider: 'deepseek' } : chunk
      }
    },
  }
}

describe('swapping providers in the middle of a session', () => {
  it('sends the whole DeepSeek history to Anthropic as a valid request: foreign reasoning dropped, tool ids mapped', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: deepseekLike(), store, sessionId: 'swap', system: 'You read files.', tools: [read] })
    first.followup('What does a.txt say?')
    await first.whenIdle()
    expect(dataOf<{ message: { content: { type: string; provider?: string }[] } }>(first, 'assistant/message')[0]!.message.content[0]).toEqual({
      type: 'reasoning',
      text: 'The user wants a.txt; call read.',
      provider: 'deepseek',
    })
    await first.close()

    server.reply(events(answer('Il dit bonjour.')))
    const second = await createAgent({ model: model(server.baseURL), store, sessionId: 'swap', system: 'You read files.', tools: [read] })
    second.followup('Thanks. In French?')
    await second.whenIdle()
    expect(turnEnds(second)).toEqual([{ kind: 'completed' }, { kind: 'completed' }])
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "What does a.txt say?",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Let me look.",
                "type": "text",
              },
              {
                "id": "toolu_bosun_c216cab2de2e56d547b4e6340edfc11a16bd7a07",
                "input": {
                  "path": "a.txt",
                },
                "name": "read",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": [
                  {
                    "text": "contents of a.txt: hello",
                    "type": "text",
                  },
                ],
                "tool_use_id": "toolu_bosun_c216cab2de2e56d547b4e6340edfc11a16bd7a07",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "a.txt says hello.",
                "type": "text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "text": "Thanks. In French?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-test",
        "stream": true,
        "system": "You read files.",
        "tools": [
          {
            "description": "Reads a file.",
            "input_schema": {
              "properties": {
                "path": {
                  "type": "string",
                },
              },
              "required": [
                "path",
              ],
              "type": "object",
            },
            "name": "read",
          },
        ],
      }
    `)
    expect(dataOf<{ message: unknown }>(second, 'assistant/message').at(-1)!.message).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Il dit bonjour.' }] })
  })
})
