// Review Y6: toolChoice went to the server as it was, so a value the anthropic and ai-sdk adapters
// refuse (another value, a forced call with no tools or naming a tool the request lacks) reached
// OpenAI — or a compatible server that ignored it. The kit checks it for every adapter now; so is
// parallelToolCalls. Against a real local server recording the request.
import type { JsonValue, ModelRequest } from '@bosun/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { request, run } from './testing/helpers.js'
import { chunk, sse, startServer, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => void (server = await startServer()))
afterAll(() => server.close())
// Every request that is sent is answered with an empty stream.
beforeEach(() => {
  server.reset()
  server.fallback = sse([chunk({}, 'stop')])
})

const tools: ModelRequest['tools'] = [
  { name: 'read', description: 'Read a file', parameters: { type: 'object' } },
  { name: 'now', description: 'The time', parameters: { type: 'object' } },
]
const send = (params: { [key: string]: JsonValue }, extra: Partial<ModelRequest> = {}) =>
  run(openai({ baseURL: server.url, model: 'm' }), request({ tools, params, ...extra }))

describe('toolChoice and parallelToolCalls', () => {
  it('the values every adapter maps are sent as tool_choice / parallel_tool_calls', async () => {
    const cases: JsonValue[] = ['auto', 'none', 'required', { type: 'function', function: { name: 'read' } }]
    for (const toolChoice of cases) expect((await send({ toolChoice })).error).toBeUndefined()
    expect((await send({ parallelToolCalls: false })).error).toBeUndefined()
    expect(server.requests.map((r) => r.body.tool_choice)).toEqual([...cases, undefined])
    expect(server.requests.at(-1)!.body.parallel_tool_calls).toBe(false)
  })

  it('nothing to choose (no tools; parallel calls with toolChoice none) is left out', async () => {
    await send({ toolChoice: 'auto', parallelToolCalls: false }, { tools: [] })
    await send({ toolChoice: 'none', parallelToolCalls: false })
    expect(server.requests.map((r) => ['tool_choice' in r.body, 'parallel_tool_calls' in r.body])).toEqual([[false, false], [true, false]])
  })

  it('what the other adapters refuse fails the request (INVALID_REQUEST, not retryable), before anything is sent', async () => {
    const failures: [{ [key: string]: JsonValue }, Partial<ModelRequest>, RegExp][] = [
      [{ toolChoice: 'any' }, {}, /"toolChoice" must be "auto", "none", "required" or \{ "type": "function"/],
      [{ toolChoice: { type: 'function', function: { name: 'write' } } }, {}, /names the tool "write", which is not among the request's tools \(read, now\)/],
      [{ toolChoice: 'required' }, { tools: [] }, /forces a tool call, but the request has no tools/],
      [{ parallelToolCalls: 'no' }, {}, /"parallelToolCalls" must be true or false \(found "no"\)/],
    ]
    for (const [params, extra, message] of failures) {
      const { error } = await send(params, extra)
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
      expect(error!.message).toMatch(message)
    }
    expect(server.requests).toEqual([])
  })
})
