// Review Y2: request.params.toolChoice was ignored by the bridge, so a session moved here from the
// openai adapter (which sends it as tool_choice) silently lost a forced or forbidden tool call. It
// is the AI SDK's `toolChoice` now; what has no equivalent fails the request before the provider
// is called. The model is a minimal provider that writes `toolChoice` as @ai-sdk/openai's chat
// model does (`tool_choice`) and POSTs to a real local server, which records the body.
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider'
import type { JsonValue, ModelRequest } from '@bosun/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { warmUpFetch } from '../../openai/src/testing/hostile.js'
import { chunk, sse, startServer, type TestServer } from '../../openai/src/testing/server.js'
import { aiSdk } from '../src/index.js'

/** @ai-sdk/openai's mapping of the call's toolChoice to Chat Completions' tool_choice. */
const wire = (choice: LanguageModelV3CallOptions['toolChoice']) =>
  choice === undefined ? undefined : choice.type === 'tool' ? { type: 'function', function: { name: choice.toolName } } : choice.type

function chatModel(url: string): LanguageModelV3 {
  return {
    specificationVersion: 'v3', provider: 'openai.chat', modelId: 'gpt-4.1', supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ tools, toolChoice, abortSignal }) {
      const body = { model: 'gpt-4.1', stream: true, tools: tools?.map((tool) => ({ type: 'function', function: { name: tool.name } })), tool_choice: wire(toolChoice) }
      const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify(body), signal: abortSignal ?? null })
      await response.text()
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: undefined, reasoning: undefined } } })
            controller.close()
          },
        }),
      }
    },
  }
}

let server: TestServer
beforeAll(async () => {
  await warmUpFetch()
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const tools: ModelRequest['tools'] = [
  { name: 'read', description: 'Read a file', parameters: { type: 'object' } },
  { name: 'now', description: 'The time', parameters: { type: 'object' } },
]

async function run(toolChoice: JsonValue | undefined, extra: Partial<ModelRequest> = {}) {
  const request: ModelRequest = { system: '', messages: [], tools, params: toolChoice === undefined ? {} : { toolChoice }, ...extra }
  try {
    for await (const _ of aiSdk({ model: chatModel(server.url) }).stream(request, { signal: new AbortController().signal })) {
      // the finish
    }
    return undefined
  } catch (error) {
    return error as Error & { code?: string; retryable?: boolean }
  }
}

describe('toolChoice through an AI SDK provider', () => {
  it("the openai adapter's values reach the provider's wire with the same meaning", async () => {
    const cases: JsonValue[] = ['auto', 'none', 'required', { type: 'function', function: { name: 'read' } }]
    server.fallback = sse([chunk({}, 'stop')])
    for (const value of cases) expect(await run(value)).toBeUndefined()
    expect(server.requests.map((r) => r.body.tool_choice)).toEqual(cases)
  })

  it('not given: none sent', async () => {
    expect(await run(undefined)).toBeUndefined()
    expect(server.requests[0]!.body).not.toHaveProperty('tool_choice')
  })

  it('what has no equivalent fails the request (INVALID_REQUEST, not retryable), before the provider is called', async () => {
    const failures: [JsonValue, Partial<ModelRequest>, RegExp][] = [
      ['any', {}, /must be "auto", "none", "required" or \{ "type": "function"/],
      [{ type: 'function', function: { name: 'write' } }, {}, /names the tool "write", which is not among the request's tools \(read, now\)/],
      ['required', { tools: [] }, /forces a tool call, but the request has no tools/],
    ]
    for (const [value, extra, message] of failures) {
      const error = await run(value, extra)
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
      expect(error!.message).toMatch(message)
    }
    expect(server.requests).toEqual([])
  })
})
