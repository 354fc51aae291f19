import { createAgent, formatTimeline, type SessionEvent, type Tool } from '@bosun/core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './index.js'
import { chunk, fixture, sse, stall, startServer, status, type TestServer } from './testing/server.js'

const SECRET = 'sk-test-SECRET-4242'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  process.env.TEST_KEY = SECRET
})
afterEach(() => {
  delete process.env.TEST_KEY
})

const weather: Tool<{ location: string }> = {
  name: 'weather',
  description: 'The current weather at a location.',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  execute: async ({ location }) => `Sunny, 21°C in ${location}`,
}

async function agentOn(extra: Partial<Parameters<typeof openai>[0]> = {}) {
  let tick = 0
  return createAgent({
    model: openai({ baseURL: server.url, model: 'deepseek-chat', apiKeyEnv: 'TEST_KEY', ...extra }),
    system: 'You are a weather assistant.',
    tools: [weather],
    now: () => 1_700_000_000_000 + tick++,
  })
}

const turnEnds = (events: readonly SessionEvent[]) => events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason)

describe('through createAgent', () => {
  it('runs a tool call: the second request carries the call and its result, paired by id, with reasoning passed back', async () => {
    server.reply(sse(fixture('deepseek-tool-call')), sse([chunk({ role: 'assistant', content: 'It is sunny, 21°C.' }), chunk({}, 'stop')]))
    const agent = await agentOn()
    agent.followup('What is the weather in San Francisco?')
    await agent.whenIdle()

    expect(formatTimeline(agent.session.events, { requests: false, maxText: 40 })).toMatchInlineSnapshot(`
      "splice next-turn @0 +["What is the weather in San Francisco?"]
      turn/start 1
      splice next-turn @0 -1
      step/start 1.1
      user/message "What is the weather in San Francisco?"
      assistant/message (reasoning "The user is asking for the weather in Sa…") weather({"location": "San Francisco"})
      tool/call weather {"location": "San Francisco"}
      tool/result weather "Sunny, 21°C in San Francisco"
      step/end 1.1 tool-calls
      step/start 1.2
      assistant/message "It is sunny, 21°C."
      step/end 1.2 stop
      turn/end 1 completed"
    `)
    const firstAnswer = agent.session.events.find((e) => e.type === 'assistant/message')?.data
    expect(firstAnswer).toMatchObject({ usage: { inputTokens: 339, outputTokens: 83, reasoningTokens: 39, cachedInputTokens: 320 } })
    expect(server.requests).toHaveLength(2)
    const second = server.requests[1]!.body
    expect(second.messages).toMatchInlineSnapshot(`
      [
        {
          "content": "You are a weather assistant.",
          "role": "system",
        },
        {
          "content": "What is the weather in San Francisco?",
          "role": "user",
        },
        {
          "content": null,
          "reasoning_content": "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"location": "San Francisco"}",
                "name": "weather",
              },
              "id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
              "type": "function",
            },
          ],
        },
        {
          "content": "Sunny, 21°C in San Francisco",
          "role": "tool",
          "tool_call_id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
        },
      ]
    `)
    expect(second.tools).toEqual([{ type: 'function', function: { name: 'weather', description: weather.description, parameters: weather.parameters } }])
    expect(second).toMatchObject({ model: 'deepseek-chat', stream: true, stream_options: { include_usage: true } })
  })

  it('passes reasoning back only on tool-call messages, in later turns too; plain answers go without it', async () => {
    server.reply(
      sse(fixture('deepseek-tool-call')),
      sse([chunk({ reasoning_content: 'Easy.' }), chunk({ content: 'Sunny.' }, 'stop')]),
      sse([chunk({ content: 'You are welcome.' }, 'stop')]),
    )
    const agent = await agentOn()
    agent.followup('Weather in SF?')
    await agent.whenIdle()
    agent.followup('Thanks!')
    await agent.whenIdle()
    const third = server.requests[2]!.body.messages as { role: string; reasoning_content?: string; content: unknown }[]
    expect(third.map((m) => [m.role, m.reasoning_content !== undefined])).toEqual([
      ['system', false], ['user', false], ['assistant', true], ['tool', false], ['assistant', false], ['user', false],
    ])
    expect(third[4]?.content).toBe('Sunny.')
  })

  it('the key reaches the server only in the Authorization header, and appears in no event and no error', async () => {
    server.reply(
      sse(fixture('deepseek-tool-call')),
      status(401, JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}.`, type: 'invalid_request_error' } })),
    )
    const agent = await agentOn()
    agent.followup('Weather in SF?')
    await agent.whenIdle()

    for (const request of server.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${SECRET}`)
      const others = Object.entries(request.headers).filter(([name]) => name !== 'authorization')
      expect(JSON.stringify(others)).not.toContain(SECRET)
      expect(JSON.stringify(request.body)).not.toContain(SECRET)
    }
    const [reason] = turnEnds(agent.session.events) as { kind: string; error: { code: string; message: string; status: number } }[]
    expect([reason?.kind, reason?.error.code, reason?.error.status]).toEqual(['error', 'AUTH', 401])
    expect(reason?.error.message).toContain('Incorrect API key provided: [redacted].')
    expect(JSON.stringify(agent.session.events)).not.toContain(SECRET)
    expect(JSON.stringify(agent.session.events)).not.toContain('SECRET-4242')
  })

  it('a typed error ends the turn with its code, status and retryAfterMs', async () => {
    server.reply(status(429, '{"error":{"message":"Rate limit reached"}}', { 'retry-after': '7' }))
    const agent = await agentOn()
    agent.followup('hi')
    await agent.whenIdle()
    expect(turnEnds(agent.session.events)).toEqual([
      {
        kind: 'error',
        error: { code: 'RATE_LIMIT', message: `The server at ${new URL(server.url).host} answered HTTP 429: Rate limit reached`, status: 429, retryable: true, retryAfterMs: 7000 },
        model: true,
      },
    ])
  })

  it('agent.abort() mid-stream ends the turn aborted, keeps the delivered prefix, and closes the connection', async () => {
    server.reply(stall([chunk({ content: 'Let me th' })]))
    const agent = await agentOn()
    const seen = new Promise<void>((resolve) => {
      agent.hooks.event.tap('test', (event) => {
        if (event.type === 'assistant/chunk') resolve()
      })
    })
    agent.followup('hi')
    await seen
    agent.abort('stop')
    await agent.whenIdle()
    await server.requests[0]!.closed
    expect(turnEnds(agent.session.events)).toEqual([{ kind: 'aborted', reason: 'stop' }])
    const message = agent.session.events.find((e) => e.type === 'assistant/message')?.data as { interrupted?: boolean; message: { content: unknown } }
    expect(message).toMatchObject({ interrupted: true, message: { content: [{ type: 'text', text: 'Let me th' }] } })
  })
})
