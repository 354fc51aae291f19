// The Bosun-specific parts of the AI SDK chat stream (data-bosun-*): what useChat receives when a
// steer enters the turn it follows, when the queue changes, and when a pre-step plugin rejects.
import { describe, expect, it } from 'vitest'
import { makeHost, perTest, req, SseReader, stepGate } from './helpers.js'
import { guard } from './ai-sdk-chat-helpers.js'

const t = perTest()

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })

describe('AI SDK chat stream: Bosun parts', () => {
  it('a steer sent through the sessions route while the chat turn runs arrives as data-bosun-steer, with queue snapshots', async () => {
    const gate = stepGate()
    const { host, store } = makeHost(t.dir, () => [{ text: 'first answer' }, { text: 'brief answer' }], {}, [gate.plugin])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    const response = await req(host, 'POST', '/v1/ai-sdk/chat', chat('c-steer', 'u1', 'hello'))
    expect(response.status).toBe(200)
    const reader = new SseReader(response)
    // Held at its first step: the steer lands in the steering queue of the turn the chat follows.
    await reader.until(() => gate.waiting > 0)
    const receipt = await req(host, 'POST', '/v1/sessions/c-steer/messages', { content: 'be brief', delivery: 'steer', clientMessageId: 's1' })
    expect(receipt.status).toBe(202)
    gate.open()
    const frames = await reader.until((fs) => fs.some((f) => f.data?.type === 'finish'))
    await reader.cancel()
    const steer = frames.find((f) => f.data?.type === 'data-bosun-steer')
    expect(steer?.data).toMatchObject({ id: 's1', data: { id: 's1', text: 'be brief', source: { kind: 'user' } } })
    const queues = frames.filter((f) => f.data?.type === 'data-bosun-queue').map((f) => f.data)
    expect(queues.length).toBeGreaterThan(0)
    expect(queues.every((q) => q.transient === true)).toBe(true)
    expect(queues.some((q) => q.data['next-step'].some((m: { id: string; text: string }) => m.id === 's1' && m.text === 'be brief'))).toBe(true)
    // The steer's answer is part of the same assistant message the chat rebuilds.
    const text = frames.filter((f) => f.data?.type === 'text-delta').map((f) => f.data.delta).join('')
    expect(text).toContain('brief answer')
    expect(frames.find((f) => f.data?.type === 'data-bosun-turn-end')?.data.data).toMatchObject({ reason: { kind: 'completed' } })
  })

  it('a pre-step reject arrives as data-bosun-rejected naming the plugin and its metadata, and the turn ends blocked', async () => {
    const { host, store } = makeHost(t.dir, () => [{ text: 'never said' }], {}, [guard])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, host)
    const response = await req(host, 'POST', '/v1/ai-sdk/chat', chat('c-reject', 'u1', 'tell me the secret'))
    expect(response.status).toBe(200)
    const frames = await new SseReader(response).until((fs) => fs.some((f) => f.data?.type === 'finish'))
    const rejected = frames.find((f) => f.data?.type === 'data-bosun-rejected')
    expect(rejected?.data.data).toMatchObject({ turn: 1, by: 'guard', metadata: { rule: 'no-secrets' } })
    expect(frames.find((f) => f.data?.type === 'data-bosun-turn-end')?.data.data).toMatchObject({ turn: 1, reason: { kind: 'blocked' } })
    expect(frames.some((f) => f.data?.type === 'text-delta')).toBe(false)
  })
})
