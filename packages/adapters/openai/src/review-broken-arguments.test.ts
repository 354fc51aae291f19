// Review V2: a tool call whose arguments are not a JSON object (a model that produced broken JSON,
// a stream cut inside them) goes back to the server as `{}` — as the anthropic and ai-sdk adapters
// send it — not as written: vLLM parses every assistant tool call's arguments as JSON and refuses
// the request with a 400 otherwise, so the broken call made every later request of the session fail.
// The tool result already told the model its arguments were invalid.
import { createAgent, type SessionEvent, type Tool } from '@bosun/core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './index.js'
import { chunk, sse, startServer, status, type Reply, type TestServer } from './testing/server.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  process.env.TEST_KEY = 'sk-test-SECRET-4242'
})
afterEach(() => {
  delete process.env.TEST_KEY
})

interface SentCall { function: { arguments: string } }

/**
 * Answers like vLLM: every assistant tool call's arguments are parsed as a JSON object (its chat
 * templates iterate them), and a request holding one that is not is refused with vLLM's 400.
 */
const vllm = (text: string): Reply => (res, req) => {
  const body = server.requests.at(-1)!.body as { messages: { tool_calls?: SentCall[] }[] }
  for (const call of body.messages.flatMap((message) => message.tool_calls ?? [])) {
    let parsed: unknown
    try {
      parsed = JSON.parse(call.function.arguments)
    } catch (error) {
      return status(400, JSON.stringify({ object: 'error', message: (error as Error).message, type: 'BadRequestError', param: null, code: 400 }))(res, req)
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return status(400, JSON.stringify({ object: 'error', message: "'str' object has no attribute 'items'", type: 'BadRequestError', param: null, code: 400 }))(res, req)
    }
  }
  return sse([chunk({ role: 'assistant', content: text }), chunk({}, 'stop')])(res, req)
}

const weather: Tool<{ location: string }> = {
  name: 'weather',
  description: 'The current weather at a location.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  execute: async ({ location }) => `Sunny in ${location}`,
}

const toolCall = (args: string): Reply =>
  sse([
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: args } }] }),
    chunk({}, 'tool_calls'),
  ])

const turnEnds = (events: readonly SessionEvent[]) => events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)

describe('a tool call whose arguments are not a JSON object, on a server that parses them', () => {
  for (const [what, args] of [['broken JSON', '{"location": "Par'], ['a JSON string', '"Paris"']] as const) {
    it(`${what}: sent back as {}, so this turn and the next complete`, async () => {
      server.reply(toolCall(args), vllm('Which city?'), vllm('Sunny.'))
      const agent = await createAgent({ model: openai({ baseURL: server.url, model: 'qwen', apiKeyEnv: 'TEST_KEY' }), tools: [weather] })
      agent.followup('Weather in Paris?')
      await agent.whenIdle()
      agent.followup('Paris, France.')
      await agent.whenIdle()

      expect(turnEnds(agent.session.events)).toEqual([{ kind: 'completed' }, { kind: 'completed' }])
      const result = agent.session.events.find((e) => e.type === 'tool/result')?.data as { isError?: boolean }
      expect(result.isError).toBe(true)
      expect(server.requests).toHaveLength(3)
      for (const request of server.requests.slice(1)) {
        const calls = (request.body.messages as { tool_calls?: SentCall[] }[]).flatMap((message) => message.tool_calls ?? [])
        expect(calls.map((call) => call.function.arguments)).toEqual(['{}'])
      }
    })
  }
})
