// What ai 6's useChat sends and reads on the chat route. The stream's `finish` part carries the turn's finishReason, as the AI SDK's own streams do
// (ai 6: `useChat`'s `onFinish` is given it): a page tells a turn cut by the token limit or failed
// from one that answered (found building an app against the host, V4: `finish` had no reason);
// a regenerate is refused (it replayed the old answer).
// Real HTTP on 127.0.0.1, JSONL files, ai 6's DefaultChatTransport (which checks every chunk
// against the protocol's schema).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessageChunk } from 'ai'
import { createAgent, type ModelRequest } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { tempDir } from './helpers.js'

const userText = (request: ModelRequest): string => {
  const last = request.messages.findLast((m) => m.role === 'user')
  return last?.role === 'user' ? last.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''
}
/** Each chat's answers, by its user message. */
const answers: Record<string, ScriptedResponse> = {
  answer: { text: 'hello' },
  long: { text: 'cut sh', finish: 'max-tokens' },
  filtered: { text: 'no', finish: 'content-filter' },
  broken: { error: { status: 400, message: 'bad request' } },
  slow: { text: 'a long answer, one letter at a time', chunkSize: 1, delayMs: 50 },
}

let dir: string
let cleanup: () => Promise<void>
let host: Host
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof jsonlStore>
let server: RunningServer
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  store = jsonlStore({ dir })
  host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 5 }, () => (request: ModelRequest) => answers[userText(request)] ?? { text: 'done' }) }), store, sessionId }),
  })
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
})
afterEach(async () => {
  await server.close()
  await host.close()
  await store.close()
  await cleanup()
})

async function chat(id: string, text: string): Promise<UIMessageChunk[]> {
  const transport = new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` })
  const stream = await transport.sendMessages({ chatId: id, messages: [{ id: `${id}-u1`, role: 'user', parts: [{ type: 'text', text }] }], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
  const chunks: UIMessageChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

describe('AI SDK chat: the finish part', () => {
  it.each([
    ['answer', 'stop'],
    ['long', 'length'],
    ['filtered', 'content-filter'],
    ['broken', 'error'],
  ])('a turn that ends as "%s" finishes with finishReason %s', async (text, reason) => {
    const chunks = await chat(`c-${text}`, text)
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: reason })
    if (reason === 'error') expect(chunks.find((c) => c.type === 'error')).toMatchObject({ errorText: expect.stringContaining('bad request') })
  })

  it('a turn stopped with POST /cancel sends abort with its reason, then finishes with finishReason other', async () => {
    const transport = new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` })
    const stream = await transport.sendMessages({ chatId: 'c-stop', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'slow' }] }], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
    const chunks: UIMessageChunk[] = []
    for await (const chunk of stream) {
      chunks.push(chunk)
      if (chunk.type === 'text-delta' && chunks.filter((c) => c.type === 'text-delta').length === 1) {
        const canceled = await fetch(`${server.url}/v1/sessions/c-stop/cancel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
        expect(canceled.status).toBe(200)
      }
    }
    expect(chunks.slice(-2)).toEqual([{ type: 'abort', reason: 'canceled' }, { type: 'finish', finishReason: 'other' }])
  })

  it("useChat's regenerate is refused, saying what to do, and admits nothing (it replayed the turn of the message it resends)", async () => {
    await chat('c-again', 'answer')
    const transport = new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` })
    const refused = transport.sendMessages({ chatId: 'c-again', messages: [{ id: 'c-again-u1', role: 'user', parts: [{ type: 'text', text: 'answer' }] }], trigger: 'regenerate-message', messageId: 'bosun-turn-1', abortSignal: undefined })
    await expect(refused).rejects.toThrow(/"code":"invalid-request".*fork the session.*"path":"\/trigger"/)
    const log = await (await fetch(`${server.url}/v1/sessions/c-again/events?limit=1000`)).json() as { events: { type: string }[] }
    expect(log.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
  })

  it("useChat's edit of a sent message (sendMessage with its messageId) is refused, saying what to do — it streamed the old answer under the new text", async () => {
    await chat('c-edit', 'answer')
    const transport = new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` })
    const edited = transport.sendMessages({ chatId: 'c-edit', messages: [{ id: 'c-edit-u1', role: 'user', parts: [{ type: 'text', text: 'long' }] }], trigger: 'submit-message', messageId: 'c-edit-u1', abortSignal: undefined })
    await expect(edited).rejects.toThrow(/"code":"invalid-request".*new message.*fork the session.*"path":"\/messageId"/)
    const log = await (await fetch(`${server.url}/v1/sessions/c-edit/events?limit=1000`)).json() as { events: { type: string }[] }
    expect(log.events.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    // A new message (no messageId) still runs, as useChat's plain sendMessage sends it.
    const transport2 = new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` })
    const next = await transport2.sendMessages({ chatId: 'c-edit', messages: [{ id: 'c-edit-u2', role: 'user', parts: [{ type: 'text', text: 'long' }] }], trigger: 'submit-message', messageId: undefined, abortSignal: undefined })
    const chunks: UIMessageChunk[] = []
    for await (const chunk of next) chunks.push(chunk)
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'length' })
  })
})
