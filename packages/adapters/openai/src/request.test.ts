import type { ModelMessage } from '@bosun/core'
import { describe, expect, it } from 'vitest'
import { buildBody, providerToolCallId, type RequestSettings } from './request.js'
import { request } from './testing/helpers.js'

const settings: RequestSettings = { model: 'deepseek-chat', provider: 'deepseek', reasoningPassback: true, streamOptions: true, maxTokensField: 'max_tokens' }

const user = (text: string, id = text): ModelMessage => ({ role: 'user', id, content: [{ type: 'text', text }] })

describe('buildBody', () => {
  it('maps system, user text and images, tools, and the streaming fields', () => {
    const body = buildBody(
      request({
        messages: [
          user('Hi'),
          { role: 'user', id: 'u2', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] },
        ],
        tools: [{ name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
      }),
      settings,
    )
    expect(body).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "You are terse.",
            "role": "system",
          },
          {
            "content": "Hi",
            "role": "user",
          },
          {
            "content": [
              {
                "text": "What is this?",
                "type": "text",
              },
              {
                "image_url": {
                  "url": "data:image/png;base64,iVBORw0KGgo=",
                },
                "type": "image_url",
              },
            ],
            "role": "user",
          },
        ],
        "model": "deepseek-chat",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tools": [
          {
            "function": {
              "description": "Reads a file.",
              "name": "read",
              "parameters": {
                "properties": {
                  "path": {
                    "type": "string",
                  },
                },
                "type": "object",
              },
            },
            "type": "function",
          },
        ],
      }
    `)
  })

  it('omits an empty system prompt and an empty tools list', () => {
    const body = buildBody(request({ system: '' }), settings)
    expect(body.messages).toEqual([{ role: 'user', content: 'Hello' }])
    expect('tools' in body).toBe(false)
  })

  it('pairs tool results with their calls, marks errors, passes back own reasoning only', () => {
    const messages: ModelMessage[] = [
      user('Weather in Paris and Rome?'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two cities, two calls.', provider: 'deepseek' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_2', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', callId: 'call_1', name: 'weather', content: [{ type: 'text', text: '18°C' }] },
      { role: 'tool', callId: 'call_2', name: 'weather', content: [{ type: 'text', text: 'service down' }], isError: true },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'Done thinking.', provider: 'deepseek' }, { type: 'text', text: 'Paris 18°C; Rome unknown.' }] },
    ]
    expect(buildBody(request({ system: '', messages }), settings).messages).toMatchInlineSnapshot(`
      [
        {
          "content": "Weather in Paris and Rome?",
          "role": "user",
        },
        {
          "content": "Checking.",
          "reasoning_content": "Two cities, two calls.",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"city":"Paris"}",
                "name": "weather",
              },
              "id": "call_1",
              "type": "function",
            },
            {
              "function": {
                "arguments": "{"city":"Rome"}",
                "name": "weather",
              },
              "id": "call_2",
              "type": "function",
            },
          ],
        },
        {
          "content": "18°C",
          "role": "tool",
          "tool_call_id": "call_1",
        },
        {
          "content": "Error: service down",
          "role": "tool",
          "tool_call_id": "call_2",
        },
        {
          "content": "Paris 18°C; Rome unknown.",
          "role": "assistant",
        },
      ]
    `)
    // With passback off, or for another provider, no reasoning_content at all.
    const off = buildBody(request({ messages }), { ...settings, reasoningPassback: false })
    expect(JSON.stringify(off)).not.toContain('reasoning_content')
    const other = buildBody(request({ messages }), { ...settings, provider: 'openai' })
    expect(JSON.stringify(other)).not.toContain('reasoning_content')
  })

  it("drops another provider's reasoning (Anthropic thinking with a signature) and maps foreign tool ids consistently", () => {
    const foreignId = 'toolu_01A09q90qw90lq917835lq9:with/odd*chars'
    const messages: ModelMessage[] = [
      user('Read a.txt'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should read it.', signature: 'EqQBCgIYAhIM', provider: 'anthropic' },
          { type: 'tool-call', id: foreignId, name: 'read', arguments: '{"path":"a.txt"}' },
        ],
      },
      { role: 'tool', callId: foreignId, name: 'read', content: [{ type: 'text', text: 'hello' }] },
    ]
    const sent = buildBody(request({ messages }), settings).messages as Record<string, unknown>[]
    const mapped = providerToolCallId(foreignId)
    expect(mapped).toMatch(/^call_[0-9a-f]{32}$/)
    expect(providerToolCallId(foreignId)).toBe(mapped)
    expect(sent[2]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: mapped, type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }] })
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: mapped, content: 'hello' })
    expect(JSON.stringify(sent)).not.toContain('I should read it.')
    // Ids the providers accept pass unchanged; a 41-character one does not.
    expect(providerToolCallId('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF')).toBe('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF')
    expect(providerToolCallId('a'.repeat(41))).toMatch(/^call_[0-9a-f]{32}$/)
  })

  it('sends a tool call without arguments back with the arguments {} (servers parse the field as JSON)', () => {
    const messages: ModelMessage[] = [
      user('Time?'),
      { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'clock', arguments: '' }] },
      { role: 'tool', callId: 'call_1', name: 'clock', content: [{ type: 'text', text: '12:00' }] },
    ]
    const sent = buildBody(request({ system: '', messages }), settings).messages as { tool_calls?: { function: { arguments: string } }[] }[]
    expect(sent[1]!.tool_calls![0]!.function.arguments).toBe('{}')
  })

  it('keeps every call answered and every result after its call', () => {
    const messages: ModelMessage[] = [
      user('go'),
      { role: 'tool', callId: 'orphan', name: 'x', content: [{ type: 'text', text: 'no call for me' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'a', name: 'shot', arguments: '{}' },
          { type: 'tool-call', id: 'b', name: 'shot', arguments: '{}' },
        ],
      },
      user('steer: hurry', 's1'),
      { role: 'tool', callId: 'a', name: 'shot', content: [{ type: 'text', text: 'see image' }, { type: 'image', mediaType: 'image/jpeg', data: 'AAAA' }] },
      // no result for b
      { role: 'assistant', content: [{ type: 'reasoning', text: 'only thoughts', provider: 'deepseek' }] },
    ]
    const roles = (buildBody(request({ system: '', messages }), settings).messages as { role: string; content: unknown; tool_call_id?: string }[])
    expect(roles.map((m) => [m.role, m.tool_call_id ?? (typeof m.content === 'string' ? m.content : '[parts]')])).toEqual([
      ['user', 'go'],
      ['assistant', '[parts]'],
      ['tool', 'a'],
      ['tool', 'b'],
      ['user', '[parts]'],
      ['user', 'steer: hurry'],
    ])
    expect(roles[3]?.content).toBe('Error: no result was recorded for this tool call.')
    expect(roles[4]?.content).toEqual([
      { type: 'text', text: 'Images returned by the tool "shot" (call a):' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
    ])
  })

  it('options give defaults; request params override them, null removes one; request.model overrides the model', () => {
    const tuned: RequestSettings = { ...settings, maxTokens: 1000, temperature: 0.2, reasoningEffort: 'low' }
    const plain = buildBody(request(), tuned)
    expect([plain.max_tokens, plain.temperature, plain.reasoning_effort]).toEqual([1000, 0.2, 'low'])
    const body = buildBody(
      request({ model: 'deepseek-reasoner', params: { maxTokens: 50, temperature: null, topP: 0.9, top_k: 40, stream: false, messages: [] } }),
      tuned,
    )
    expect(body).toMatchObject({ model: 'deepseek-reasoner', max_tokens: 50, top_p: 0.9, top_k: 40, reasoning_effort: 'low', stream: true })
    expect('temperature' in body).toBe(false)
    expect((body.messages as unknown[]).length).toBe(2)
    const completion = buildBody(request({ params: { maxTokens: 64 } }), { ...tuned, maxTokensField: 'max_completion_tokens' })
    expect([completion.max_completion_tokens, completion.max_tokens]).toEqual([64, undefined])
  })
})
