// GET /v1/ai-sdk/chat/:id/messages: a chat page that reloads after a turn loads the chat back as
// UIMessage[] (the AI SDK's pattern: useChat({ messages }) / new Chat({ messages })). Real HTTP on
// 127.0.0.1, JSONL files, ai 6's DefaultChatTransport and AbstractChat (what useChat wraps): the
// loaded messages are the streamed chat's, part for part, read a few events a page.
import { describe, expect, it, vi } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { createAgent } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { listen } from '../src/index.js'
import { ChatMessagesFold } from '../src/ai-sdk-messages.js'
import { PlainChat } from './ai-sdk-chat-helpers.js'
import { makeHost, perTest, req, SseReader, stepGate } from './helpers.js'

const t = perTest()

const tools = [
  { name: 'clock', description: 'The time', parameters: { type: 'object', properties: {} }, execute: () => 'noon' },
  { name: 'broken', description: 'Fails', parameters: { type: 'object', properties: {} }, execute: () => { throw new Error('no disk') } },
]
const answers = (): ScriptedResponse[] => [
  { reasoning: 'let me look', toolCalls: [{ name: 'clock', args: {} }, { name: 'broken', args: { deep: { a: 1 } } }] },
  { text: 'It is noon.', chunkSize: 3 },
  { text: 'You are welcome.' },
  { text: 'Again: noon.' },
]

/** A served host whose sessions answer `answers()` with `tools`, its log paged 4 events at a time (a turn spans pages). */
async function serveChat(): Promise<string> {
  const { host, store } = makeHost(t.dir, answers, {
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: answers() }), store, sessionId, tools }),
    limits: { keepAliveMs: 200, pageSize: 4 },
  })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(store, host, server)
  return server.url
}

/** What a page would keep of the chat's messages (JSON: no undefined fields). */
const stored = (messages: UIMessage[]): unknown => JSON.parse(JSON.stringify(messages))

/** Runs `read` counting the events the route folds, and the most folded within one turn of the event loop. */
async function countingFolds<T>(read: () => Promise<T>): Promise<{ result: T; folded: number; most: number }> {
  const add = ChatMessagesFold.prototype.add
  const counts = { inTurn: 0, most: 0, folded: 0, ticking: true }
  const spy = vi.spyOn(ChatMessagesFold.prototype, 'add').mockImplementation(function (this: ChatMessagesFold, event) {
    counts.most = Math.max(counts.most, ++counts.inTurn)
    counts.folded++
    add.call(this, event)
  })
  const everyTurn = (): void => {
    counts.inTurn = 0
    if (counts.ticking) setImmediate(everyTurn)
  }
  everyTurn()
  try {
    return { result: await read(), folded: counts.folded, most: counts.most }
  } finally {
    counts.ticking = false
    spy.mockRestore()
  }
}

describe('AI SDK chat: loading the messages back', () => {
  it('a reloaded chat equals the streamed one part for part, with stable ids, and goes on from there', async () => {
    const url = await serveChat()
    const load = async (id: string): Promise<Response> => fetch(`${url}/v1/ai-sdk/chat/${id}/messages`)
    const transport = new DefaultChatTransport<UIMessage>({ api: `${url}/v1/ai-sdk/chat` })
    const chat = new PlainChat('reload-1', transport)
    await chat.sendMessage({ text: 'what time is it?' })
    await chat.sendMessage({ text: 'thanks' })
    expect(chat.status).toBe('ready')
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(chat.messages[1]!.parts.find((p) => p.type === 'tool-clock')).toMatchObject({ state: 'output-available', output: 'noon' })
    expect(chat.messages[1]!.parts.find((p) => p.type === 'tool-broken')).toMatchObject({ state: 'output-error' })

    const response = await load('reload-1')
    expect(response.status).toBe(200)
    const loaded = (await response.json()) as UIMessage[]
    expect(loaded).toEqual(stored(chat.messages))
    // The same ids on every load; the log read a page (4 events) per turn of the event loop, not whole.
    const again = await countingFolds(async () => (await load('reload-1')).json())
    expect(again.result).toEqual(loaded)
    expect(again.folded).toBeGreaterThan(20)
    expect(again.most).toBeLessThanOrEqual(4)

    // The page reloaded: a chat made with the loaded messages sends its next message on them.
    const reloaded = new PlainChat('reload-1', transport, loaded)
    await reloaded.sendMessage({ text: 'and now?' })
    expect(reloaded.messages.map((m) => m.id)).toEqual([...loaded.map((m) => m.id), reloaded.messages[4]!.id, 'bosun-turn-3'])
    expect(await (await load('reload-1')).json()).toEqual(stored(reloaded.messages))
    // No such session: the host's 404.
    const missing = await load('nobody')
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('session-not-found')
  })

  it('a turn still running gives its user message, not its answer (resume streams that); a steer is in its answer', async () => {
    const gate = stepGate()
    const held = makeHost(t.dir, () => [{ text: 'later' }, { text: 'brief' }], {}, [gate.plugin])
    t.closing.push(held.store, held.host)
    const messages = async (): Promise<UIMessage[]> => (await req(held.host, 'GET', '/v1/ai-sdk/chat/c-open/messages')).json() as Promise<UIMessage[]>
    const reader = new SseReader(await req(held.host, 'POST', '/v1/ai-sdk/chat', { id: 'c-open', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }))
    // Held before its first step: claimed, no user/message logged yet.
    await reader.until(() => gate.waiting > 0)
    expect(await messages()).toEqual([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }])
    expect((await req(held.host, 'POST', '/v1/sessions/c-open/messages', { content: 'be brief', delivery: 'steer', clientMessageId: 's1' })).status).toBe(202)
    gate.open()
    await reader.until((frames) => frames.some((f) => f.data?.type === 'finish'))
    await reader.cancel()
    // The steer rode the turn's second step: a part of its answer, as the chat stream had it.
    const ended = await messages()
    expect(ended.map((m) => m.id)).toEqual(['u1', 'bosun-turn-1'])
    expect(ended[1]!.parts.find((p) => p.type === 'data-bosun-steer')).toMatchObject({ id: 's1', data: { id: 's1', text: 'be brief' } })
  })
})
