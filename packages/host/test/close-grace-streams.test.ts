// U2 (walking job 1 over HTTP): `bosun serve` stopped (SIGTERM) while a useChat stream was open.
// The host gives the running turn its grace to finish, and it did — but the host stopped following
// each session before the grace (sessions.ts detached its log listener first), so its streams were
// never told of what the turn logged then: the chat stream ended after its first parts with no
// `finish` (useChat: an error, the answer cut), and the session stream without the turn's end.
import { describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen } from '../src/index.js'
import { perTest, waitFor } from './helpers.js'

const t = perTest()

/** A host on a real socket whose one turn streams 20 characters, 50 ms apart; a chat and a session stream open on it. */
async function chatOpenAtClose() {
  const store = jsonlStore({ dir: t.dir })
  t.closing.push(store)
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'abcdefghijklmnopqrst', chunkSize: 1, delayMs: 50 }] }), store, sessionId }) })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(host)
  const chat = await fetch(`${server.url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'g', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }) })
  const session = await fetch(`${server.url}/v1/sessions/g/stream`)
  const read = (response: Response) => {
    const state = { text: '', done: false }
    void (async () => {
      const decoder = new TextDecoder()
      // A connection the close cuts ends the read as its end would.
      for await (const chunk of response.body!) state.text += decoder.decode(chunk as Uint8Array, { stream: true })
    })().catch(() => {}).finally(() => { state.done = true })
    return state
  }
  return { server, chat: read(chat), session: read(session) }
}

describe('streams open while the host closes with a grace', () => {
  it('a turn that finishes in the grace reaches its chat stream (finish, [DONE]) and its session stream (turn/end)', async () => {
    const { server, chat, session } = await chatOpenAtClose()
    await waitFor(() => chat.text.includes('"text-delta"'), 15_000, 'the answer streaming')
    await server.close({ graceMs: 30_000 })
    await waitFor(() => chat.done && session.done, 15_000, 'both streams ended')
    expect(chat.text).toContain('{"type":"finish","finishReason":"stop"}')
    expect(chat.text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    expect(session.text).toMatch(/"type":"turn\/end","data":\{"turn":1,"reason":\{"kind":"completed"\}\}/)
  })

  it('a turn the grace\'s end aborts ends its chat stream with abort and finish', async () => {
    const { server, chat } = await chatOpenAtClose()
    await waitFor(() => chat.text.includes('"text-delta"'), 15_000, 'the answer streaming')
    await server.close({ graceMs: 1 })
    await waitFor(() => chat.done, 15_000, 'the chat stream ended')
    expect(chat.text).toContain('{"type":"abort","reason":"shutdown"}')
    expect(chat.text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  })
})
