import { describe, expect, it } from 'vitest'
import { json, makeHost, perTest, req, SseReader, stepGate, waitFor } from './helpers.js'

const t = perTest()

const chat = (id: string, messageId: string, text: string) => ({ id, messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }] })

describe('AI SDK chat stream', () => {
  it('sends keep-alive comments while a step produces nothing', async () => {
    const gate = stepGate()
    const { host: h, store } = makeHost(t.dir, () => [{ text: 'at last' }], { limits: { keepAliveMs: 50 } }, [gate.plugin])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, h)
    const response = await req(h, 'POST', '/v1/ai-sdk/chat', chat('c1', 'u1', 'hello'))
    expect(response.status).toBe(200)
    const reader = new SseReader(response)
    // The turn is held before its first step: nothing to say but keep-alives.
    await reader.until((frames) => frames.filter((f) => f.event === 'comment' && f.comment === 'keep-alive').length >= 2)
    gate.open()
    const frames = await reader.until((fs) => fs.some((f) => f.data?.type === 'finish'))
    expect(frames.filter((f) => f.data?.type === 'text-delta').map((f) => f.data.delta).join('')).toBe('at last')
    await reader.cancel()
  })

  it('two first requests for a new chat id both stream (one creates the session, neither gets 409)', async () => {
    const gate = stepGate()
    const { host: h, store } = makeHost(t.dir, () => [{ text: 'one' }, { text: 'two' }], {}, [gate.plugin])
    // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
    t.closing.push(store, h)
    const [a, b] = await Promise.all([
      req(h, 'POST', '/v1/ai-sdk/chat', chat('fresh', 'u1', 'first')),
      req(h, 'POST', '/v1/ai-sdk/chat', chat('fresh', 'u2', 'second')),
    ])
    expect([a.status, b.status]).toEqual([200, 200])
    gate.open()
    for (const response of [a, b]) await new SseReader(response).until((fs) => fs.some((f) => f.data?.type === 'finish'))
    await waitFor(async () => (await json(req(h, 'GET', '/v1/sessions/fresh'))).status === 'idle', 15_000, 'the chat session to go idle')
    const sessions = await json(req(h, 'GET', '/v1/sessions'))
    expect(sessions.sessions.map((s: { id: string }) => s.id)).toEqual(['fresh'])
  })
})
