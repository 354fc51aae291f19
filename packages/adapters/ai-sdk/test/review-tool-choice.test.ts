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

/** What @ai-sdk/openai and @ai-sdk/anthropic read of their providerOptions for parallel tool calls. */
const parallelWire = (provider: string, options: LanguageModelV3CallOptions['providerOptions']) =>
  provider === 'openai.chat'
    ? { parallel_tool_calls: options?.openai?.parallelToolCalls }
    : provider === 'anthropic.messages'
      ? { disable_parallel_tool_use: options?.anthropic?.disableParallelToolUse }
      : {}

function chatModel(url: string, provider = 'openai.chat'): LanguageModelV3 {
  return {
    specificationVersion: 'v3', provider, modelId: 'gpt-4.1', supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    async doStream({ tools, toolChoice, providerOptions, abortSignal }) {
      const body = { model: 'gpt-4.1', stream: true, tools: tools?.map((tool) => ({ type: 'function', function: { name: tool.name } })), tool_choice: wire(toolChoice), ...parallelWire(provider, providerOptions) }
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

async function run(toolChoice: JsonValue | undefined, extra: Partial<ModelRequest> = {}, provider?: string) {
  const request: ModelRequest = { system: '', messages: [], tools, params: toolChoice === undefined ? {} : { toolChoice }, ...extra }
  try {
    for await (const _ of aiSdk({ model: chatModel(server.url, provider) }).stream(request, { signal: new AbortController().signal })) {
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

  // Review Y6: parallelToolCalls was ignored by the bridge. The AI SDK's call options have no field
  // for it: it goes to the providerOptions of the providers that read one; elsewhere false fails.
  it("parallelToolCalls reaches @ai-sdk/openai's and @ai-sdk/anthropic's providerOptions", async () => {
    server.fallback = sse([chunk({}, 'stop')])
    for (const value of [false, true]) {
      expect(await run(undefined, { params: { parallelToolCalls: value } }, 'openai.chat')).toBeUndefined()
      expect(await run(undefined, { params: { parallelToolCalls: value } }, 'anthropic.messages')).toBeUndefined()
    }
    expect(server.requests.map((r) => r.body.parallel_tool_calls ?? r.body.disable_parallel_tool_use)).toEqual([false, true, true, false])
  })

  it('parallelToolCalls false on a provider the bridge cannot ask fails the request, before the provider is called; true, none or no tools pass', async () => {
    const error = await run(undefined, { params: { parallelToolCalls: false } }, 'google.generative-ai')
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(error!.message).toMatch(/"parallelToolCalls" is false, but the AI SDK gives no portable way to ask it and google\.generative-ai/)
    expect(server.requests).toEqual([])
    server.fallback = sse([chunk({}, 'stop')])
    const passing: Partial<ModelRequest>[] = [{ params: { parallelToolCalls: true } }, { params: { toolChoice: 'none', parallelToolCalls: false } }, { params: { parallelToolCalls: false }, tools: [] }]
    for (const extra of passing) expect(await run(undefined, extra, 'google.generative-ai')).toBeUndefined()
    expect(server.requests).toHaveLength(3)
  })
})
