// How a Bosun request becomes an Anthropic Messages request: alternation, merging, tool results,
// thinking passback, foreign reasoning, tool ids, images, params.
import { describe, expect, it } from 'vitest'
import type { JsonValue, ModelMessage, ModelRequest } from '@bosun/core'
import { resolveOptions } from './options.js'
import { toAnthropicRequest, toolInput, toolUseId } from './request.js'

const options = resolveOptions({ model: 'claude-test' })
const user = (text: string, id = text): ModelMessage => ({ role: 'user', id, content: [{ type: 'text', text }] })
const request = (messages: ModelMessage[], extra: Partial<ModelRequest> = {}): ModelRequest => ({ system: '', messages, tools: [], params: {}, ...extra })

describe('messages', () => {
  it('merges tool results and user messages that follow them into one user message, tool results first', () => {
    const body = toAnthropicRequest(
      request(
        [
          user('read a and b'),
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', id: 'toolu_a', name: 'read', arguments: '{"path":"a"}' },
              { type: 'text', text: 'Reading both.' },
              { type: 'tool-call', id: 'toolu_b', name: 'read', arguments: '{"path":"b"}' },
            ],
          },
          { role: 'tool', callId: 'toolu_a', name: 'read', content: [{ type: 'text', text: 'A' }] },
          user('also, be brief'),
          { role: 'tool', callId: 'toolu_b', name: 'read', content: [{ type: 'text', text: 'no such file' }], isError: true },
        ],
        {
          system: 'You are terse.',
          tools: [{ name: 'read', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
        },
      ),
      options,
    )
    expect(body).toMatchInlineSnapshot(`
      {
        "max_tokens": 4096,
        "messages": [
          {
            "content": [
              {
                "text": "read a and b",
                "type": "text",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Reading both.",
                "type": "text",
              },
              {
                "id": "toolu_a",
                "input": {
                  "path": "a",
                },
                "name": "read",
                "type": "tool_use",
              },
              {
                "id": "toolu_b",
                "input": {
                  "path": "b",
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
                    "text": "A",
                    "type": "text",
                  },
                ],
                "tool_use_id": "toolu_a",
                "type": "tool_result",
              },
              {
                "content": [
                  {
                    "text": "no such file",
                    "type": "text",
                  },
                ],
                "is_error": true,
                "tool_use_id": "toolu_b",
                "type": "tool_result",
              },
              {
                "text": "also, be brief",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-test",
        "stream": true,
        "system": "You are terse.",
        "tools": [
          {
            "description": "Reads a file.",
            "input_schema": {
              "properties": {
                "path": {
                  "type": "string",
                },
              },
              "type": "object",
            },
            "name": "read",
          },
        ],
      }
    `)
  })

  it('passes Anthropic thinking back first and unchanged, redacted thinking as redacted_thinking, and drops other reasoning', () => {
    const body = toAnthropicRequest(
      request([
        user('q'),
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'DeepSeek thinks', provider: 'deepseek' },
            { type: 'reasoning', text: 'unsigned', provider: 'anthropic' },
            { type: 'reasoning', text: 'no provider', signature: 'sig-x' },
            { type: 'text', text: 'Answer.' },
            { type: 'reasoning', text: 'Claude thinks', signature: 'sig-1', provider: 'anthropic' },
            { type: 'text', text: '' },
            { type: 'reasoning', text: '', signature: 'redacted-data', provider: 'anthropic' },
          ],
        },
        user('next'),
      ]),
      options,
    )
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Claude thinks', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'redacted-data' },
        { type: 'text', text: 'Answer.' },
      ],
    })
  })

  it('skips messages left empty and merges the neighbours they separated', () => {
    const body = toAnthropicRequest(
      request([
        user('one'),
        { role: 'assistant', content: [{ type: 'reasoning', text: 'foreign', provider: 'openai' }, { type: 'text', text: '' }] },
        { role: 'user', id: 'empty', content: [{ type: 'text', text: '' }] },
        user('two'),
        { role: 'assistant', content: [{ type: 'text', text: 'A' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 't', arguments: '{}' }, { type: 'reasoning', text: 'r', signature: 's', provider: 'anthropic' }] },
      ]),
      options,
    )
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'r', signature: 's' }, { type: 'text', text: 'A' }, { type: 'tool_use', id: 'toolu_1', name: 't', input: {} }],
      },
    ])
  })

  it('leaves out text blocks of whitespace only, which Anthropic refuses ("text content blocks must contain non-whitespace text")', () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' }
    const body = toAnthropicRequest(
      request([
        // A caption left blank beside an image (stored before the host dropped such blocks).
        { role: 'user', id: 'u', content: [{ type: 'text', text: ' \n\t' }, image] },
        // A model's "\n\n" before its tool call.
        { role: 'assistant', content: [{ type: 'text', text: '\n\n' }, { type: 'tool-call', id: 'toolu_1', name: 't', arguments: '{}' }] },
        { role: 'tool', callId: 'toolu_1', name: 't', content: [{ type: 'text', text: '   ' }] },
        { role: 'user', id: 'blank', content: [{ type: 'text', text: '  ' }] },
        user('next'),
      ]),
      options,
    )
    const texts = body.messages.flatMap((message) => message.content).flatMap((part) => [
      ...(part.type === 'text' ? [part.text] : []),
      ...(part.type === 'tool_result' ? (part.content ?? []).flatMap((inner) => (inner.type === 'text' ? [inner.text] : [])) : []),
    ])
    expect(texts).toEqual(['next'])
    expect(body.messages.map((message) => message.content.map((part) => part.type))).toEqual([['image'], ['tool_use'], ['tool_result', 'text']])
  })

  it('sends images as base64 image blocks, in user messages and tool results', () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' }
    const body = toAnthropicRequest(
      request([
        { role: 'user', id: 'u', content: [{ type: 'text', text: 'look' }, image] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'shot', arguments: '' }] },
        { role: 'tool', callId: 'toolu_1', name: 'shot', content: [image] },
      ]),
      options,
    )
    const source = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }
    expect(body.messages[0]!.content[1]).toEqual({ type: 'image', source })
    expect(body.messages[2]!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'image', source }] })
  })
})

describe('tool ids and arguments', () => {
  it('keeps ids Anthropic accepts and maps others to a stable hash, the same for the call and its result', () => {
    expect(toolUseId('toolu_01KFbKqPYSuAKujiL6mTfzYA')).toBe('toolu_01KFbKqPYSuAKujiL6mTfzYA')
    expect(toolUseId('call_1_0')).toBe('call_1_0')
    const foreign = ['functions.read:0', 'call 1', 'x'.repeat(65), '']
    for (const id of foreign) {
      expect(toolUseId(id)).toMatch(/^toolu_bosun_[0-9a-f]{40}$/)
      expect(toolUseId(id)).toBe(toolUseId(id))
    }
    expect(new Set(foreign.map(toolUseId)).size).toBe(foreign.length)
    const body = toAnthropicRequest(
      request([
        user('q'),
        { role: 'assistant', content: [{ type: 'tool-call', id: 'functions.read:0', name: 'read', arguments: '{}' }] },
        { role: 'tool', callId: 'functions.read:0', name: 'read', content: [{ type: 'text', text: 'ok' }] },
      ]),
      options,
    )
    expect(body.messages[1]!.content[0]).toMatchObject({ type: 'tool_use', id: toolUseId('functions.read:0') })
    expect(body.messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: toolUseId('functions.read:0') })
  })

  it('sends arguments that are not a JSON object as {}', () => {
    expect(toolInput('{"a":1}')).toEqual({ a: 1 })
    for (const broken of ['', '{"a":', '[1]', '"text"', 'null', '3']) expect(toolInput(broken)).toEqual({})
  })
})

describe('parameters', () => {
  it('omits an empty system and no tools; request.model and params override the options', () => {
    const body = toAnthropicRequest(
      request([user('q')], { model: 'claude-other', params: { maxTokens: 100, temperature: 0.2 } }),
      resolveOptions({ model: 'claude-test', maxTokens: 50, temperature: 0.9 }),
    )
    expect(body).toEqual({ model: 'claude-other', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], temperature: 0.2, stream: true })
  })

  it('maps reasoningEffort to a thinking budget, drops the temperature and leaves room for the answer', () => {
    const withThinking = resolveOptions({ model: 'claude-test', reasoningEffort: 'medium', temperature: 0.5 })
    expect(toAnthropicRequest(request([user('q')]), withThinking)).toMatchObject({ max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 } })
    expect(toAnthropicRequest(request([user('q')]), withThinking).temperature).toBeUndefined()
    expect(toAnthropicRequest(request([user('q')], { params: { maxTokens: 20000, reasoningEffort: 'high' } }), withThinking)).toMatchObject({
      max_tokens: 20000,
      thinking: { type: 'enabled', budget_tokens: 16384 },
    })
    expect(toAnthropicRequest(request([user('q')], { params: { reasoningEffort: 'low' } }), options).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 })
  })

  it('goes without thinking while a tool loop that another provider started is still open', () => {
    const withThinking = resolveOptions({ model: 'claude-test', reasoningEffort: 'low' })
    const loop = (reasoning: ModelMessage[] = []): ModelMessage[] => [
      user('q'),
      { role: 'assistant', content: [...reasoning.flatMap((m) => m.content as never[]), { type: 'tool-call', id: 'call_1', name: 't', arguments: '{}' }] },
      { role: 'tool', callId: 'call_1', name: 't', content: [{ type: 'text', text: 'ok' }] },
    ]
    expect(toAnthropicRequest(request(loop()), withThinking).thinking).toBeUndefined()
    const signed: ModelMessage = { role: 'assistant', content: [{ type: 'reasoning', text: 'r', signature: 's', provider: 'anthropic' }] }
    expect(toAnthropicRequest(request(loop([signed])), withThinking).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 })
    expect(toAnthropicRequest(request([...loop(), { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, user('next')]), withThinking).thinking).toBeDefined()
  })

  it('refuses params of the wrong type with INVALID_REQUEST naming the param', () => {
    const bad: { [key: string]: JsonValue }[] = [{ maxTokens: 0 }, { maxTokens: '100' }, { temperature: 2 }, { reasoningEffort: 'extreme' }]
    for (const params of bad) {
      expect(() => toAnthropicRequest(request([user('q')], { params }), options)).toThrow(
        expect.objectContaining({ code: 'INVALID_REQUEST', message: expect.stringContaining(`"${Object.keys(params)[0]}"`) }),
      )
    }
  })
})
