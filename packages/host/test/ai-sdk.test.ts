import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { tempDir } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let host: Host
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof jsonlStore>
let server: RunningServer

const clock = { name: 'clock', description: 'The time', parameters: { type: 'object', properties: {} }, execute: () => 'noon' }

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  store = jsonlStore({ dir })
  host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({
      model: scripted({ responses: [
        { reasoning: 'let me look', toolCalls: [{ name: 'clock', args: {} }] },
        { text: 'It is noon.', chunkSize: 3, delayMs: 5 },
      ] }),
      store, sessionId, tools: [clock],
    }),
    limits: { keepAliveMs: 200 },
  })
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
})
afterEach(async () => {
  await server.close()
  await host.close()
  await store.close()
  await cleanup()
})

describe('AI SDK useChat against a Bosun session', () => {
  it('rebuilds a multi-step turn with a tool call and a reasoning block from the UI message stream v1', async () => {
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` })
    const user: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'what time is it?' }] }
    const stream = await transport.sendMessages({ chatId: 'chat-1', messages: [user], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
    let last: UIMessage | undefined
    for await (const message of readUIMessageStream({ stream })) last = message
    const parts = last!.parts
    const types = parts.map((p) => p.type)
    expect(types.filter((t) => t === 'step-start')).toHaveLength(2)
    expect(parts.find((p) => p.type === 'reasoning')).toMatchObject({ text: 'let me look' })
    const tool = parts.find((p) => p.type === 'tool-clock') as { state: string; output: unknown } | undefined
    expect(tool).toMatchObject({ state: 'output-available', output: 'noon' })
    expect(parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toBe('It is noon.')
    // The session is a Bosun session like any other: the message is where the log says.
    const status = await (await fetch(`${server.url}/v1/sessions/chat-1/messages/u1`)).json()
    expect(status).toMatchObject({ state: 'claimed', stepped: true, turnEnd: 'completed' })
    // No open turn: the resume route answers 204.
    expect((await fetch(`${server.url}/v1/ai-sdk/chat/chat-1/stream`)).status).toBe(204)
    const response = await fetch(`${server.url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'chat-1', messages: [user] }) })
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    const text = await response.text() // a retry replays the same turn: no second splice
    expect(text).toContain('"type":"finish"')
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    const events = (await (await fetch(`${server.url}/v1/sessions/chat-1/events?limit=1000`)).json()) as { events: { type: string }[] }
    expect(events.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
  })
})
