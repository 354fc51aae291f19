// One config file, one session, two providers: a conversation with a tool call on an
// OpenAI-compatible server, then the same session continued after changing only `model` in
// bosun.config.json to the Anthropic adapter (and back the other way). Both servers are real
// `node:http` servers on 127.0.0.1 speaking each protocol's event stream; what they receive is
// the proof that the history travels and the keys do not.
import { execFileSync } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Agent } from '@bosun/core'
import { createAgentFromConfig, loadConfig } from '@bosun/core/config'
import { providerToolCallId } from '@bosun/adapter-openai'
import { toolUseId } from '@bosun/adapter-anthropic'

const OPENAI_KEY = 'sk-swap-openai-FAKE-1111'
const ANTHROPIC_KEY = 'sk-ant-swap-FAKE-2222'
const ENV = { SWAP_OPENAI_KEY: OPENAI_KEY, SWAP_ANTHROPIC_KEY: ANTHROPIC_KEY } as const

// ---------------------------------------------------------------------------------------------
// The packages the config names are loaded by the config loader the way an installed
// application loads them — through their `exports`, from `dist/` — not from source like this
// file's own imports. Build them first (tsc -b is incremental: quick when current), under the
// lock core's config tests take for the same build, so that two builds never write dist/ at once.

const root = fileURLToPath(new URL('../../', import.meta.url))

function buildConfigPackages(): void {
  const lock = join(tmpdir(), `bosun-fixture-build-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`)
  const deadline = Date.now() + 120_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true })
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
    }
  }
  const projects = ['packages/core', 'packages/adapters/openai', 'packages/adapters/anthropic', 'packages/plugins/store-jsonl']
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', ...projects], { cwd: root, stdio: 'pipe' })
  } catch (error) {
    // Type errors still emit; only a missing entry point stops the test.
    if (!projects.every((project) => existsSync(join(root, project, 'dist/index.js')))) throw error
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// Fake servers

interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: any
}

type Reply = (res: ServerResponse) => Promise<void>

interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: Received[]
  /** Queues replies, one per request, in order; with none left the server answers 500. */
  reply(...replies: Reply[]): void
  reset(): void
  close(): Promise<void>
}

async function fakeServer(): Promise<FakeServer> {
  const queue: Reply[] = []
  const requests: Received[] = []
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const text = Buffer.concat(parts).toString('utf8')
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = { unparsed: text }
    }
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body })
    const reply = queue.shift()
    if (reply === undefined) {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end('{"error":{"type":"api_error","message":"no reply queued"}}')
      return
    }
    await reply(res).catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    reset: () => {
      queue.length = 0
      requests.length = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Writes SSE frames one by one (each its own write, a tick apart), then ends the response. */
function eventStream(frames: readonly string[]): Reply {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
    res.flushHeaders()
    for (const frame of frames) {
      if (res.destroyed) return
      res.write(frame)
      await new Promise((resolve) => setImmediate(resolve))
    }
    res.end()
  }
}

// --- OpenAI Chat Completions: `data: <chunk>\n\n` … `data: [DONE]\n\n`

let completionCount = 0

/** A Chat Completions stream: one `chat.completion.chunk` per delta, the finish, the usage chunk, `[DONE]`. */
function chatCompletion(deltas: readonly Record<string, unknown>[], finishReason: 'stop' | 'tool_calls'): Reply {
  const base = { id: `chatcmpl-swap-${++completionCount}`, object: 'chat.completion.chunk', created: 1_764_000_000, model: 'deepseek-chat' }
  const chunks = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    ...deltas.map((delta) => ({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] },
    { ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } },
  ]
  return eventStream([...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), 'data: [DONE]\n\n'])
}

const openaiText = (...pieces: string[]): Reply => chatCompletion(pieces.map((content) => ({ content })), 'stop')

/** A tool call whose arguments arrive in pieces; the id and name come in the first delta only. */
function openaiToolCall(id: string, name: string, argumentPieces: readonly string[], reasoning?: string): Reply {
  const deltas: Record<string, unknown>[] = []
  if (reasoning !== undefined) deltas.push({ content: null, reasoning_content: reasoning })
  deltas.push({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] })
  for (const piece of argumentPieces) deltas.push({ tool_calls: [{ index: 0, function: { arguments: piece } }] })
  return chatCompletion(deltas, 'tool_calls')
}

// --- Anthropic Messages: `event: <type>\ndata: <json>\n\n`

let messageCount = 0

/** A Messages stream: message_start, the content blocks, message_delta with the stop reason, message_stop. */
function anthropicMessage(blocks: readonly { start: Record<string, unknown>; deltas: Record<string, unknown>[] }[], stopReason: 'end_turn' | 'tool_use'): Reply {
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_swap_${++messageCount}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [],
        stop_reason: null, stop_sequence: null, usage: { input_tokens: 42, output_tokens: 1 },
      },
    },
    { type: 'ping' },
  ]
  blocks.forEach((block, index) => {
    events.push({ type: 'content_block_start', index, content_block: block.start })
    for (const delta of block.deltas) events.push({ type: 'content_block_delta', index, delta })
    events.push({ type: 'content_block_stop', index })
  })
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 7 } })
  events.push({ type: 'message_stop' })
  return eventStream(events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`))
}

const anthropicText = (...pieces: string[]): Reply =>
  anthropicMessage([{ start: { type: 'text', text: '' }, deltas: pieces.map((text) => ({ type: 'text_delta', text })) }], 'end_turn')

function anthropicToolUse(id: string, name: string, jsonPieces: readonly string[], thinking?: { text: string; signature: string }): Reply {
  const blocks: { start: Record<string, unknown>; deltas: Record<string, unknown>[] }[] = []
  if (thinking !== undefined) {
    blocks.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [{ type: 'thinking_delta', thinking: thinking.text }, { type: 'signature_delta', signature: thinking.signature }],
    })
  }
  blocks.push({
    start: { type: 'tool_use', id, name, input: {} },
    deltas: jsonPieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
  })
  return anthropicMessage(blocks, 'tool_use')
}

// ---------------------------------------------------------------------------------------------
// The project: a folder inside tests/swap, so that `openai`, `anthropic` and `store-jsonl`
// resolve from tests/swap/node_modules like they would from a user's project.

const WORK = fileURLToPath(new URL('./.work/', import.meta.url))

const READ_TOOL = `// A tool module in plain JS, named by the config: reads a file of the project folder.
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'

export default {
  name: 'read',
  description: 'Read a text file of the project folder.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'The file name, e.g. notes.txt' } },
    required: ['path'],
    additionalProperties: false,
  },
  async execute({ path }) {
    return readFile(new URL('../' + basename(path), import.meta.url), 'utf8')
  },
}
`

interface Project {
  dir: string
  configFile: string
  /** Reads bosun.config.json, lets `change` edit it, writes it back. */
  edit(change: (config: Record<string, any>) => void): Promise<void>
  /** The session file's lines, parsed (the header first). */
  sessionLines(sessionId: string): Promise<any[]>
  sessionText(sessionId: string): Promise<string>
}

async function makeProject(model: Record<string, unknown>): Promise<Project> {
  const dir = join(WORK, randomUUID())
  await mkdir(join(dir, 'tools'), { recursive: true })
  await writeFile(join(dir, 'tools', 'read.mjs'), READ_TOOL)
  await writeFile(join(dir, 'a.txt'), 'hello')
  await writeFile(join(dir, 'b.txt'), 'goodbye')
  const configFile = join(dir, 'bosun.config.json')
  const config = {
    model,
    store: ['store-jsonl', { dir: '.bosun/sessions' }],
    system: 'You are a file assistant.',
    tools: ['./tools/read.mjs'],
  }
  await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`)
  const sessionFile = (id: string): string => join(dir, '.bosun', 'sessions', `${id}.jsonl`)
  return {
    dir,
    configFile,
    async edit(change) {
      const current = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, any>
      change(current)
      await writeFile(configFile, `${JSON.stringify(current, null, 2)}\n`)
    },
    sessionText: (id) => readFile(sessionFile(id), 'utf8'),
    async sessionLines(id) {
      const text = await readFile(sessionFile(id), 'utf8')
      return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line))
    },
  }
}

/** Loads the project's config the way the CLI would (search from the folder) and builds the agent. */
async function agentFor(project: Project, sessionId: string): Promise<Agent> {
  const loaded = await loadConfig({ cwd: project.dir })
  expect(loaded.file).toBe(project.configFile)
  return createAgentFromConfig(loaded, { sessionId })
}

/** Sends one follow-up, waits for the turn, and fails with the turn's error if it did not complete. */
async function converse(agent: Agent, text: string): Promise<void> {
  agent.followup(text)
  await agent.whenIdle()
  const end = agent.session.events.findLast((event) => event.type === 'turn/end')?.data as { reason: { kind: string; error?: unknown } }
  expect(end.reason, JSON.stringify(end.reason)).toMatchObject({ kind: 'completed' })
}

/** `adapter model` of each request/header of the log: which provider answered which step. */
const requestsLog = (events: readonly { type: string; data: any }[]): string[] =>
  events.filter((event) => event.type === 'request/header').map((event) => `${event.data.turn}.${event.data.step} ${event.data.adapter} ${event.data.model}`)

// ---------------------------------------------------------------------------------------------

let openaiServer: FakeServer
let anthropicServer: FakeServer
const savedEnv: Record<string, string | undefined> = {}
const projects: string[] = []

beforeAll(async () => {
  buildConfigPackages()
  openaiServer = await fakeServer()
  anthropicServer = await fakeServer()
}, 180_000)

afterAll(async () => {
  await Promise.all([openaiServer?.close(), anthropicServer?.close()])
  // The .work folder goes when it holds nothing but what these tests made.
  if ((await readdir(WORK).catch(() => [])).length === 0) await rm(WORK, { recursive: true, force: true })
})

beforeEach(() => {
  for (const [name, value] of Object.entries(ENV)) {
    savedEnv[name] = process.env[name]
    process.env[name] = value
  }
})

afterEach(async () => {
  for (const name of Object.keys(ENV)) {
    if (savedEnv[name] === undefined) delete process.env[name]
    else process.env[name] = savedEnv[name]
  }
  openaiServer.reset()
  anthropicServer.reset()
  await Promise.all(projects.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

const openaiModel = (): Record<string, unknown> => ({
  adapter: 'openai',
  // The OpenAI adapter's baseURL is the API root including /v1; it posts to <baseURL>/chat/completions.
  options: { model: 'deepseek-chat', baseURL: `${openaiServer.origin}/v1`, apiKeyEnv: 'SWAP_OPENAI_KEY' },
})

const anthropicModel = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  adapter: 'anthropic',
  // The Anthropic adapter's baseURL is the root without /v1; it posts to <baseURL>/v1/messages.
  options: { model: 'claude-sonnet-4-5', baseURL: anthropicServer.origin, apiKeyEnv: 'SWAP_ANTHROPIC_KEY', ...extra },
})

/** No line of the session file holds a key, or the name of the variable holding one. */
async function expectNoLeak(project: Project, sessionId: string): Promise<void> {
  const text = await project.sessionText(sessionId)
  expect(text).not.toContain(OPENAI_KEY)
  expect(text).not.toContain(ANTHROPIC_KEY)
  expect(text).not.toContain('SWAP_OPENAI_KEY') // not even the variable's name: the options are not logged
}

describe('swapping providers mid-session by editing bosun.config.json', () => {
  it('openai → anthropic: the Anthropic server receives a valid Messages request carrying the whole history', async () => {
    const project = await makeProject(openaiModel())
    projects.push(project.dir)
    const sessionId = 'swap-openai-anthropic'
    const toolCallId = 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF' // DeepSeek's id shape

    // Turn 1 on the OpenAI-compatible server: a tool call (with DeepSeek-style reasoning, arguments
    // in three pieces), then the answer.
    openaiServer.reply(
      openaiToolCall(toolCallId, 'read', ['{"pa', 'th":"a.', 'txt"}'], 'The user wants a.txt; I will read it.'),
      openaiText('It says', ' hello.'),
    )
    const first = await agentFor(project, sessionId)
    await converse(first, 'What does a.txt say?')
    await first.close()

    expect(openaiServer.requests).toHaveLength(2)
    for (const request of openaiServer.requests) {
      expect(request.method).toBe('POST')
      expect(request.path).toBe('/v1/chat/completions')
      expect(request.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)
      expect(request.headers['x-api-key']).toBeUndefined()
    }
    // The tool loop on the first server: the assistant's tool_calls, then the tool message paired
    // by tool_call_id; the reasoning goes back on the tool-call message (same provider).
    expect(openaiServer.requests[1]!.body).toMatchObject({
      model: 'deepseek-chat',
      stream: true,
      messages: [
        { role: 'system', content: 'You are a file assistant.' },
        { role: 'user', content: 'What does a.txt say?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'The user wants a.txt; I will read it.',
          tool_calls: [{ id: toolCallId, type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } }],
        },
        { role: 'tool', tool_call_id: toolCallId, content: 'hello' },
      ],
      tools: [{ type: 'function', function: { name: 'read' } }],
    })
    expect(openaiServer.requests[1]!.body.messages).toHaveLength(4)

    // The swap: only `model` changes in the file.
    const before = JSON.parse(await readFile(project.configFile, 'utf8'))
    await project.edit((config) => {
      config.model = anthropicModel()
    })
    const after = JSON.parse(await readFile(project.configFile, 'utf8'))
    expect({ ...after, model: undefined }).toEqual({ ...before, model: undefined })

    // Turn 2 on the Anthropic server, same store, same session id.
    anthropicServer.reply(anthropicText('b.txt says', ' goodbye.'))
    const second = await agentFor(project, sessionId)
    expect(second.session.events.length).toBeGreaterThan(0) // resumed, not a new session
    await converse(second, 'Thanks! And b.txt?')

    expect(anthropicServer.requests).toHaveLength(1)
    const received = anthropicServer.requests[0]!
    expect(received.method).toBe('POST')
    expect(received.path).toBe('/v1/messages')
    expect(received.headers['x-api-key']).toBe(ANTHROPIC_KEY)
    expect(received.headers['anthropic-version']).toBe('2023-06-01')
    expect(received.headers.authorization).toBeUndefined()
    expect(JSON.stringify(received)).not.toContain(OPENAI_KEY)
    for (const request of openaiServer.requests) expect(JSON.stringify(request)).not.toContain(ANTHROPIC_KEY)

    // The whole history as a valid Messages request: top-level system, strict user/assistant
    // alternation, tool_use (the DeepSeek id is accepted as it is) and its tool_result, the
    // DeepSeek reasoning dropped (Anthropic would refuse unsigned thinking), the tools with input_schema.
    expect(toolUseId(toolCallId)).toBe(toolCallId)
    expect(received.body).toMatchInlineSnapshot(`
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
                "id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
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
                    "text": "hello",
                    "type": "text",
                  },
                ],
                "tool_use_id": "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "It says hello.",
                "type": "text",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "text": "Thanks! And b.txt?",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "claude-sonnet-4-5",
        "stream": true,
        "system": "You are a file assistant.",
        "tools": [
          {
            "description": "Read a text file of the project folder.",
            "input_schema": {
              "additionalProperties": false,
              "properties": {
                "path": {
                  "description": "The file name, e.g. notes.txt",
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
    const roles = received.body.messages.map((message: { role: string }) => message.role)
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])

    // The log: the same session, answered by two providers; no key in any event.
    expect(requestsLog(second.session.events)).toEqual([
      '1.1 openai deepseek-chat',
      '1.2 openai deepseek-chat',
      '2.1 anthropic claude-sonnet-4-5',
    ])
    await second.close()
    const lines = await project.sessionLines(sessionId)
    expect(lines.filter((line) => line.type === 'turn/end')).toHaveLength(2)
    await expectNoLeak(project, sessionId)
  })

  it('anthropic → openai: signed thinking goes back to Anthropic, and is left out for the OpenAI-compatible server', async () => {
    const project = await makeProject(anthropicModel({ reasoningEffort: 'low' }))
    projects.push(project.dir)
    const sessionId = 'swap-anthropic-openai'
    const toolCallId = 'toolu_01A09q90qw90lq917835lq9'

    anthropicServer.reply(
      anthropicToolUse(toolCallId, 'read', ['{"path":', ' "a.txt"}'], { text: 'I should read a.txt.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' }),
      anthropicText('It says hello.'),
    )
    const first = await agentFor(project, sessionId)
    await converse(first, 'What does a.txt say?')
    await first.close()

    // Within the Anthropic tool loop the signed thinking block is sent back first, unchanged.
    expect(anthropicServer.requests).toHaveLength(2)
    for (const request of anthropicServer.requests) {
      expect(request.headers['x-api-key']).toBe(ANTHROPIC_KEY)
      expect(JSON.stringify(request)).not.toContain(OPENAI_KEY)
    }
    expect(anthropicServer.requests[1]!.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What does a.txt say?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I should read a.txt.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
            { type: 'tool_use', id: toolCallId, name: 'read', input: { path: 'a.txt' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolCallId, content: [{ type: 'text', text: 'hello' }] }] },
      ],
    })

    await project.edit((config) => {
      config.model = openaiModel()
    })
    openaiServer.reply(openaiText('b.txt says goodbye.'))
    const second = await agentFor(project, sessionId)
    await converse(second, 'Thanks! And b.txt?')

    expect(openaiServer.requests).toHaveLength(1)
    const received = openaiServer.requests[0]!
    expect(received.path).toBe('/v1/chat/completions')
    expect(received.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`)
    expect(JSON.stringify(received)).not.toContain(ANTHROPIC_KEY)
    // The Anthropic id fits OpenAI's rules and is kept; the thinking (and its signature) is not sent.
    expect(providerToolCallId(toolCallId)).toBe(toolCallId)
    expect(JSON.stringify(received.body)).not.toContain('EqQBCgIYAhIM1gbcDa9GJwZA2b3h')
    expect(received.body.messages).toEqual([
      { role: 'system', content: 'You are a file assistant.' },
      { role: 'user', content: 'What does a.txt say?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: toolCallId, type: 'function', function: { name: 'read', arguments: '{"path": "a.txt"}' } }],
      },
      { role: 'tool', tool_call_id: toolCallId, content: 'hello' },
      { role: 'assistant', content: 'It says hello.' },
      { role: 'user', content: 'Thanks! And b.txt?' },
    ])
    await second.close()
    await expectNoLeak(project, sessionId)
  })

  it('a tool call id neither provider accepts is mapped, the same way for the call and its result, and kept in the log', async () => {
    const project = await makeProject(openaiModel())
    projects.push(project.dir)
    const sessionId = 'swap-mapped-ids'
    const toolCallId = 'functions.read:0' // Kimi's id shape: '.' and ':' are refused by both APIs

    openaiServer.reply(openaiToolCall(toolCallId, 'read', ['{"path":"a.txt"}']), openaiText('It says hello.'))
    const first = await agentFor(project, sessionId)
    await converse(first, 'What does a.txt say?')
    await first.close()

    const sentToOpenAI = providerToolCallId(toolCallId)
    expect(sentToOpenAI).toMatch(/^call_[0-9a-f]{32}$/)
    const loop = openaiServer.requests[1]!.body.messages
    expect(loop[2].tool_calls[0].id).toBe(sentToOpenAI)
    expect(loop[3]).toEqual({ role: 'tool', tool_call_id: sentToOpenAI, content: 'hello' })

    await project.edit((config) => {
      config.model = anthropicModel()
    })
    anthropicServer.reply(anthropicText('b.txt says goodbye.'))
    const second = await agentFor(project, sessionId)
    await converse(second, 'Thanks! And b.txt?')
    await second.close()

    const sentToAnthropic = toolUseId(toolCallId)
    expect(sentToAnthropic).toMatch(/^toolu_bosun_[0-9a-f]{40}$/)
    const messages = anthropicServer.requests[0]!.body.messages
    expect(messages[1].content).toEqual([{ type: 'tool_use', id: sentToAnthropic, name: 'read', input: { path: 'a.txt' } }])
    expect(messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: sentToAnthropic, content: [{ type: 'text', text: 'hello' }] })

    // The session keeps the model's own id.
    const lines = await project.sessionLines(sessionId)
    const result = lines.find((line) => line.type === 'tool/result')
    expect(result.data.callId).toBe(toolCallId)
    await expectNoLeak(project, sessionId)
  })
})
