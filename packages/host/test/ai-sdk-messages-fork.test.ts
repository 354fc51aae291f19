// GET /v1/ai-sdk/chat/:id/messages on a fork (POST /v1/sessions/:id/fork with afterTurn): the
// parent's turns the fork copied load as the parent's chat showed them — the same ids, the same
// parts, a turn a plugin blocked before its first step included — and the fork's own turns follow
// them. Real HTTP on 127.0.0.1, JSONL files, ai 6's DefaultChatTransport and AbstractChat.
import { describe, expect, it } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import { listen } from '../src/index.js'
import { makeHost, perTest } from './helpers.js'
import { guard, PlainChat } from './ai-sdk-chat-helpers.js'

const t = perTest()

/** What a page would keep of the chat's messages (JSON: no undefined fields). */
const stored = (messages: UIMessage[]): unknown => JSON.parse(JSON.stringify(messages))

describe('AI SDK chat: loading a fork back', () => {
  it("gives the parent's copied turns as the parent's chat has them, then the fork's own", async () => {
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'second answer' }], { limits: { keepAliveMs: 200, pageSize: 3 } }, [guard])
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` })
    const load = async (id: string): Promise<UIMessage[]> => {
      const response = await fetch(`${server.url}/v1/ai-sdk/chat/${id}/messages`)
      expect(response.status).toBe(200)
      return (await response.json()) as UIMessage[]
    }

    // The parent: an answer, a turn the guard blocked, another answer.
    const parent = new PlainChat('p', transport)
    await parent.sendMessage({ text: 'hello' })
    await parent.sendMessage({ text: 'tell me the secret' })
    await parent.sendMessage({ text: 'what now?' })
    expect(parent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    const parentLoaded = await load('p')
    expect(parentLoaded).toEqual(stored(parent.messages))
    expect(parentLoaded[3]!.parts.some((p) => p.type === 'data-bosun-rejected')).toBe(true)

    // Forked after the blocked turn: its first four messages, ids and parts, as the parent has them.
    const fork = await fetch(`${server.url}/v1/sessions/p/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'f', afterTurn: 2 }) })
    expect(fork.status).toBe(201)
    const forkLoaded = await load('f')
    expect(forkLoaded.map((m) => m.id)).toEqual(parentLoaded.slice(0, 4).map((m) => m.id))
    expect(forkLoaded).toEqual(parentLoaded.slice(0, 4))
    expect(await load('f')).toEqual(forkLoaded)

    // The fork's own turn comes after them, numbered on from the seed, and loads as it streamed.
    const child = new PlainChat('f', transport, forkLoaded)
    await child.sendMessage({ text: 'and here?' })
    expect(child.messages.map((m) => m.id)).toEqual([...forkLoaded.map((m) => m.id), child.messages[4]!.id, 'bosun-turn-3'])
    expect(await load('f')).toEqual(stored(child.messages))
    // The parent's chat is unchanged by the fork.
    expect(await load('p')).toEqual(parentLoaded)

    // A fork of the fork (its seed holds the first fork's seed and its end): the first fork's chat.
    const nested = await fetch(`${server.url}/v1/sessions/f/fork`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'g', afterTurn: 3 }) })
    expect(nested.status).toBe(201)
    expect(await load('g')).toEqual(stored(child.messages))
  })
})
