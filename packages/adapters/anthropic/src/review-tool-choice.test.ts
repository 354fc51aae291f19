// Review Y2: request.params.toolChoice was ignored by this adapter, so a session moved here from
// the openai adapter (which sends it as tool_choice) silently lost a forced or forbidden tool
// call. It is mapped to Anthropic's tool_choice; what has no equivalent fails the request, before
// anything is sent. Against a real local server recording the request.
import type { JsonValue, ModelRequest } from '@bosun/core'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ask, collect, model, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, type FakeServer } from './testing/server.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const tools: ModelRequest['tools'] = [
  { name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'now', description: 'The time', parameters: { type: 'object' } },
]
const answer = () =>
  events([
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-test', stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  ])
const run = (toolChoice: JsonValue | undefined, extra: Partial<ModelRequest> = {}, options: Parameters<typeof model>[1] = {}) =>
  collect(model(server.baseURL, options).stream(ask('hi', { tools, params: toolChoice === undefined ? {} : { toolChoice }, ...extra }), { signal: new AbortController().signal }))

describe('toolChoice', () => {
  it("maps the openai adapter's values to Anthropic's tool_choice", async () => {
    const cases: [JsonValue, unknown][] = [
      ['auto', { type: 'auto' }],
      ['none', { type: 'none' }],
      ['required', { type: 'any' }],
      [{ type: 'function', function: { name: 'read' } }, { type: 'tool', name: 'read' }],
    ]
    for (const [value, sent] of cases) {
      server.reply(answer())
      expect((await run(value)).error).toBeUndefined()
      expect(server.requests.at(-1)!.body.tool_choice).toEqual(sent)
    }
  })

  it('auto or none with no tools sends nothing to choose; without toolChoice no tool_choice is sent', async () => {
    server.reply(answer(), answer())
    await run('none', { tools: [] })
    await collect(model(server.baseURL).stream(ask('hi', { tools }), { signal: new AbortController().signal }))
    expect(server.requests.map((r) => 'tool_choice' in r.body)).toEqual([false, false])
  })

  it('what has no equivalent fails the request (INVALID_REQUEST, not retryable), before anything is sent', async () => {
    const failures: [JsonValue, Partial<ModelRequest>, Parameters<typeof model>[1], RegExp][] = [
      ['any', {}, {}, /must be "auto", "none", "required" or \{ "type": "function"/],
      [{ type: 'tool', name: 'read' }, {}, {}, /must be "auto", "none", "required"/],
      [{ type: 'function', function: { name: 'write' } }, {}, {}, /names the tool "write", which is not among the request's tools \(read, now\)/],
      ['required', { tools: [] }, {}, /forces a tool call, but the request has no tools/],
      ['required', {}, { reasoningEffort: 'low' }, /Anthropic refuses while extended thinking is on \(reasoningEffort "low"\)/],
    ]
    for (const [value, extra, options, message] of failures) {
      const { error } = await run(value, extra, options)
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
      expect(error!.message).toMatch(message)
    }
    expect(server.requests).toEqual([])
  })

  // Review Y6: parallelToolCalls was ignored here; it is disable_parallel_tool_use, inside tool_choice.
  it('parallelToolCalls false: disable_parallel_tool_use in tool_choice (auto when no toolChoice); none, true or no tools add nothing', async () => {
    const cases: [JsonValue | undefined, JsonValue, Partial<ModelRequest>, unknown][] = [
      [undefined, false, {}, { type: 'auto', disable_parallel_tool_use: true }],
      ['auto', false, {}, { type: 'auto', disable_parallel_tool_use: true }],
      ['required', false, {}, { type: 'any', disable_parallel_tool_use: true }],
      [{ type: 'function', function: { name: 'read' } }, false, {}, { type: 'tool', name: 'read', disable_parallel_tool_use: true }],
      ['none', false, {}, { type: 'none' }],
      [undefined, true, {}, undefined],
      ['required', true, {}, { type: 'any' }],
      [undefined, false, { tools: [] }, undefined],
    ]
    for (const [toolChoice, parallelToolCalls, extra, sent] of cases) {
      server.reply(answer())
      const params = { ...(toolChoice === undefined ? {} : { toolChoice }), parallelToolCalls }
      expect((await run(undefined, { params, ...extra })).error).toBeUndefined()
      expect(server.requests.at(-1)!.body.tool_choice).toEqual(sent)
    }
  })

  it('parallelToolCalls false with thinking on is sent (auto allows it); another value fails', async () => {
    server.reply(answer())
    expect((await run(undefined, { params: { parallelToolCalls: false } }, { reasoningEffort: 'low' })).error).toBeUndefined()
    expect(server.requests[0]!.body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true })
    const { error } = await run(undefined, { params: { parallelToolCalls: 'no' } })
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(error!.message).toMatch(/"parallelToolCalls" must be true or false/)
    expect(server.requests).toHaveLength(1)
  })
})
