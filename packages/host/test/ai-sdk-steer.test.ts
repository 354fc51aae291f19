// A steer sent through the chat route itself (`useChat`'s sendMessage with body.bosun.delivery
// 'steer') while the chat's turn runs. Its stream is that turn, from its start: the same parts
// under the same message id as the first stream, so whichever of the two `useChat` writes last,
// the assistant message is the whole turn. It used to stream nothing and never end (the stream
// starts reading at the admission, after the turn's turn/start, so it never learnt which turn
// claimed the steer); a stream of the turn from the steer's step on replaced the whole answer
// in useChat's message with its part. Found walking useChat against a host. Real HTTP on
// 127.0.0.1, JSONL files, ai 6's DefaultChatTransport and AbstractChat (what useChat wraps).
import { describe, expect, it } from 'vitest'
import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage, type UIMessageChunk } from 'ai'
import { listen } from '../src/index.js'
import { makeHost, perTest, stepGate, waitFor } from './helpers.js'

const t = perTest()

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })

/** Reads a chat stream into `chunks` until it ends; `done` says whether it has. */
function collect(stream: ReadableStream<UIMessageChunk>): { chunks: UIMessageChunk[]; readonly done: boolean; ended: Promise<void> } {
  const state = { chunks: [] as UIMessageChunk[], done: false, ended: Promise.resolve() }
  state.ended = (async () => {
    for await (const chunk of stream) state.chunks.push(chunk)
    state.done = true
  })()
  return state
}

/** The chat state useChat keeps (a plain array here instead of React state). */
class PlainState implements ChatState<UIMessage> {
  messages: UIMessage[] = []
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  pushMessage = (message: UIMessage): void => { this.messages = [...this.messages, message] }
  popMessage = (): void => { this.messages = this.messages.slice(0, -1) }
  replaceMessage = (index: number, message: UIMessage): void => { this.messages = this.messages.map((m, i) => (i === index ? message : m)) }
  snapshot = <T>(value: T): T => structuredClone(value)
}
class PlainChat extends AbstractChat<UIMessage> {
  constructor(id: string, api: string) {
    super({ id, transport: new DefaultChatTransport({ api }), state: new PlainState() })
  }
}

const textOf = (chunks: UIMessageChunk[]): string => chunks.filter((c) => c.type === 'text-delta').map((c) => (c as { delta: string }).delta).join('')
/** A stream's parts without the queue snapshots (transient: what the queues are as each stream reads them). */
const lasting = (chunks: UIMessageChunk[]): UIMessageChunk[] => chunks.filter((c) => c.type !== 'data-bosun-queue')

describe('AI SDK chat: a steer sent through the chat route while the turn runs', () => {
  it('streams that turn from its start, the same parts as the first stream, and ends', async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'brief answer' }], {}, [gate.plugin])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    // Closed in reverse: the server, then the host, then the store.
    t.closing.push(store, host, server)
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` })
    const send = (messages: UIMessage[], body?: object) => transport.sendMessages({ chatId: 'c-steer', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined, ...(body ? { body } : {}) })

    const first = collect(await send([user('u1', 'hello')]))
    // Held at its first step: the steer is admitted while turn 1 runs, into its steering queue.
    await waitFor(() => gate.waiting > 0, 15_000, 'the first step held at pre-step')
    const steer = collect(await send([user('u1', 'hello'), user('s1', 'be brief')], { bosun: { delivery: 'steer' } }))
    gate.open()
    await first.ended
    await waitFor(() => steer.done, 15_000, () => `the steer's stream to end (it has ${JSON.stringify(steer.chunks)})`)

    expect(textOf(first.chunks)).toBe('first answerbrief answer')
    expect(first.chunks.find((c) => c.type === 'data-bosun-steer')).toMatchObject({ id: 's1', data: { id: 's1', text: 'be brief' } })
    expect(steer.chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-1' })
    expect(steer.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(lasting(steer.chunks)).toEqual(lasting(first.chunks))
  })

  it("useChat's message is the whole turn after sending a steer while it streams", async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'brief answer' }], {}, [gate.plugin])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const chat = new PlainChat('c-usechat', `${server.url}/v1/ai-sdk/chat`)

    const first = chat.sendMessage({ text: 'hello' })
    await waitFor(() => gate.waiting > 0, 15_000, 'the first step held at pre-step')
    await waitFor(() => chat.messages.some((m) => m.role === 'assistant'), 15_000, 'the first stream to start its message')
    const steered = chat.sendMessage({ text: 'be brief' }, { body: { bosun: { delivery: 'steer' } } })
    // Both requests are open before the turn goes on: each stream writes the message in turn.
    await waitFor(() => gate.waiting > 0 && chat.messages.length === 3, 15_000, 'the steer in the chat')
    gate.open()
    await Promise.all([first, steered])

    const answers = chat.messages.filter((m) => m.role === 'assistant')
    expect(answers.map((m) => m.id)).toEqual(['bosun-turn-1'])
    expect(answers[0]!.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('')).toBe('first answerbrief answer')
    expect(chat.status).toBe('ready')
  })
})
