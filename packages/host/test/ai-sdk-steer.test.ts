// A steer sent through the chat route itself (`useChat`'s sendMessage with body.bosun.delivery
// 'steer') while the chat's turn runs. Its stream is that turn, from its start: the same parts
// under the same message id as the first stream, so whichever of the two `useChat` writes last,
// the assistant message is the whole turn. It used to stream nothing and never end (the stream
// starts reading at the admission, after the turn's turn/start, so it never learnt which turn
// claimed the steer); a stream of the turn from the steer's step on replaced the whole answer
// in useChat's message with its part. Found walking useChat against a host. Real HTTP on
// 127.0.0.1, JSONL files, ai 6's DefaultChatTransport and AbstractChat (what useChat wraps).
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { listen } from '../src/index.js'
import { makeHost, perTest, stepGate, waitFor } from './helpers.js'
import { collect, expectSteeredTurn, expectWholeTurnIn, PlainChat, user } from './ai-sdk-chat-helpers.js'

const t = perTest()

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

    expectSteeredTurn(first, steer)
  })

  it("useChat's message is the whole turn after sending a steer while it streams", async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'brief answer' }], {}, [gate.plugin])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const chat = new PlainChat('c-usechat', new DefaultChatTransport({ api: `${server.url}/v1/ai-sdk/chat` }))

    const first = chat.sendMessage({ text: 'hello' })
    await waitFor(() => gate.waiting > 0, 15_000, 'the first step held at pre-step')
    await waitFor(() => chat.messages.some((m) => m.role === 'assistant'), 15_000, 'the first stream to start its message')
    const steered = chat.sendMessage({ text: 'be brief' }, { body: { bosun: { delivery: 'steer' } } })
    // Both requests are open before the turn goes on: each stream writes the message in turn.
    await waitFor(() => gate.waiting > 0 && chat.messages.length === 3, 15_000, 'the steer in the chat')
    gate.open()
    await Promise.all([first, steered])

    expectWholeTurnIn(chat)
    // useChat keeps the steer's own user message where sendMessage put it, after the answer it
    // joined; the filter docs/host.md gives (a user message a data-bosun-steer part names) leaves
    // what a reload (GET …/messages) shows: the prompt, then the answer with the steer inside.
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const steers = new Set(chat.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'data-bosun-steer' ? [(p as { id?: string }).id] : []))))
    const shown = chat.messages.filter((m) => m.role !== 'user' || !steers.has(m.id))
    expect(shown.map((m) => m.role)).toEqual(['user', 'assistant'])
  })
})
