// A chat message queued behind a running turn, then edited (PATCH /v1/sessions/:id/inbox/:messageId):
// the edit is logged as a removal of the message and its insertion in place, under its id. The
// chat request's stream must not take that removal for the claim of a turn: it streams the turn
// that claims the edited message, and ends. Real HTTP on 127.0.0.1, JSONL files, ai 6's
// DefaultChatTransport.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { listen } from '../src/index.js'
import { makeHost, perTest, stepGate, waitFor } from './helpers.js'
import { collect, lasting, textOf, user } from './ai-sdk-chat-helpers.js'

const t = perTest()

describe('AI SDK chat: a queued message edited before its turn', () => {
  it("streams the turn that claims the edited message, and ends; reloaded, the chat has the edited text", async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'second answer' }], {}, [gate.plugin])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` })
    const send = (messages: UIMessage[]) => transport.sendMessages({ chatId: 'c-edit', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined })

    const first = collect(await send([user('u1', 'hello')]))
    await waitFor(() => gate.waiting > 0, 15_000, 'turn 1 held at its first step')
    // Queued behind turn 1 (a follow-up): its stream waits for the turn that claims it.
    const queued = collect(await send([user('u1', 'hello'), user('u2', 'what about tea?')]))
    const edit = await fetch(`${server.url}/v1/sessions/c-edit/inbox/u2`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'what about coffee?' }) })
    expect(edit.status).toBe(200)
    gate.open()
    await first.ended
    await waitFor(() => queued.done, 15_000, () => `the edited message's stream to end (it has ${JSON.stringify(queued.chunks)})`)

    expect(textOf(first.chunks)).toBe('first answer')
    // Turn 2 claimed the edited message: its stream is turn 2, whole, not turn 1 nor nothing.
    expect(queued.chunks[0]).toEqual({ type: 'start', messageId: 'bosun-turn-2' })
    expect(textOf(queued.chunks)).toBe('second answer')
    expect(queued.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' })
    expect(lasting(queued.chunks).filter((c) => c.type === 'start')).toHaveLength(1)

    // The session ran the edited text, and a reload shows it under the message's id.
    const loaded = (await (await fetch(`${server.url}/v1/ai-sdk/chat/c-edit/messages`)).json()) as UIMessage[]
    expect(loaded.map((m) => m.id)).toEqual(['u1', 'bosun-turn-1', 'u2', 'bosun-turn-2'])
    expect(loaded[2]).toEqual(user('u2', 'what about coffee?'))
  })
})
