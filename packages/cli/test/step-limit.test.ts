// The bundled step-limit plugin, named by its short name in a config file: a model that keeps
// calling tools is stopped at maxSteps, the CLI says so and how to raise it, and the session goes on.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { beforeAll, describe } from 'vitest'
import type { SessionEvent } from '@bosun/core'
import { bosun, it, readEvents, requireBuild, sessionIdFrom, writeProject } from './helpers.js'
import { OPENAI_ADAPTER, recordedPayloads, recordedText } from './provider-replay.js'

beforeAll(requireBuild)

/** A model stuck calling a tool that does not exist, then (if the script gets that far) an answer. */
const looping = (calls: number, then: unknown[] = []) => ({
  model: { adapter: 'scripted', options: { responses: [...Array.from({ length: calls }, () => ({ toolCalls: [{ name: 'no_such_tool' }] })), ...then] } },
  plugins: [['step-limit', { maxSteps: 2 }]],
})

const SAID = 'blocked by step-limit: the turn reached its limit of 2 steps (model calls) and was stopped; ' +
  'what it did is kept, so another message goes on from there. To allow more, raise maxSteps in the config: ["step-limit", { "maxSteps": 4 }]'

const turnEnds = (events: readonly SessionEvent[]) =>
  events.filter((event) => event.type === 'turn/end').map((event) => (event as SessionEvent<'turn/end'>).data.reason.kind)

describe.concurrent('step-limit from a config file', () => {
  it('bosun run: the turn ends blocked (exit 3) after maxSteps, said in words; the next run in the session completes', async ({ dir, expect }) => {
    await writeProject(dir, looping(10), { 'answer.json': JSON.stringify({ plugins: [['step-limit', { maxSteps: 2 }]] }) })
    const blocked = await bosun(['run', 'go'], { cwd: dir })
    expect(blocked.code).toBe(3)
    expect(blocked.stderr).toContain(SAID)
    const id = sessionIdFrom(blocked.stderr)
    const events = await readEvents(dir, id)
    expect(events.filter((event) => event.type === 'step/start')).toHaveLength(2)
    expect(events.filter((event) => event.type === 'agent/pre-step/rejected').map((event) => event.data)).toEqual([
      { turn: 1, by: 'step-limit', metadata: { reason: 'max-steps', maxSteps: 2, step: 3 } },
    ])
    // The same session, with a model that answers (the scripted one echoes): the turn after the tool results runs.
    const next = await bosun(['--config', 'answer.json', 'run', '-s', id, 'what happened?'], { cwd: dir })
    expect(next).toMatchObject({ code: 0, stdout: 'echo: what happened?\n' })
    expect(turnEnds(await readEvents(dir, id))).toEqual(['blocked', 'completed'])
  })

  it('bosun chat: the transcript says the limit was reached, and the next message runs', async ({ dir, expect }) => {
    await writeProject(dir, looping(2, [{ text: 'back on track' }]))
    const result = await bosun(['chat', '--session', 'loop'], { cwd: dir, input: 'go\nwhat happened?\n' })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`⊘ turn 1 ${SAID}`)
    expect(result.stdout).toContain('back on track')
    expect(turnEnds(await readEvents(dir, 'loop'))).toEqual(['blocked', 'completed'])
  })
})

interface ChatMessage { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }

/**
 * A local Chat Completions server that answers every request with `payloads()` (a recorded provider
 * stream) and keeps each request's messages: what the OpenAI adapter sent is checked, not assumed.
 */
async function recordingServer(payloads: () => readonly string[]) {
  const bodies: { messages: ChatMessage[] }[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      bodies.push(JSON.parse(body) as { messages: ChatMessage[] })
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const payload of payloads()) res.write(`data: ${payload}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  }
}

describe.concurrent('step-limit with the OpenAI adapter, replaying a provider that keeps calling a tool', () => {
  it.for([
    // The recorded deepseek answer was cut at its token limit (finish_reason length): max-tokens.
    ['deepseek', 'deepseek-reasoner', 'max-tokens'],
    ['xai', 'grok-3-mini', 'completed'],
  ] as const)('%s: the turn ends blocked after maxSteps; the next turn sends the tool results, then the message, and runs', async ([provider, model, end], { dir, expect }) => {
    const toolCall = recordedPayloads(`${provider}-tool-call.chunks.txt`)
    const text = recordedPayloads(`${provider}-text.chunks.txt`)
    let replies = toolCall
    const server = await recordingServer(() => replies)
    try {
      await writeProject(dir, {
        model: { adapter: './openai.mjs', options: { model, baseURL: server.baseURL, idleTimeoutMs: 60_000 } },
        plugins: [['step-limit', { maxSteps: 3 }]],
      }, { 'openai.mjs': OPENAI_ADAPTER })
      const blocked = await bosun(['run', '-s', 'looping', 'go'], { cwd: dir })
      expect(blocked.code).toBe(3)
      expect(blocked.stderr).toContain('blocked by step-limit: the turn reached its limit of 3 steps')
      expect(server.bodies).toHaveLength(3)

      replies = text
      const next = await bosun(['run', '-s', 'looping', 'what happened?'], { cwd: dir })
      expect(next.code).toBe(0)
      expect(next.stdout).toBe(`${recordedText(text)}\n`)
      const messages = server.bodies.at(-1)!.messages
      expect(messages.map((message) => message.role)).toEqual(['user', ...Array.from({ length: 3 }, () => ['assistant', 'tool']).flat(), 'user'])
      expect(messages.at(-1)!.content).toBe('what happened?')
      // Each assistant message's tool calls are answered by the tool messages right after it.
      messages.forEach((message, i) => {
        if (message.role === 'assistant') expect(message.tool_calls!.map((call) => call.id)).toEqual([messages[i + 1]!.tool_call_id])
      })
      expect(turnEnds(await readEvents(dir, 'looping'))).toEqual(['blocked', end])
    } finally {
      await server.close()
    }
  })
})
