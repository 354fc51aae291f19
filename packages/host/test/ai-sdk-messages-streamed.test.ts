// GET /v1/ai-sdk/chat/:id/messages sends the chat as it reads it: the messages of each page of the
// log go out before the next page is read, so a long chat (images, tool outputs) is never held
// whole in the host's memory, and a client that stops reading stops the reads. Before, the route
// folded the whole log into one array and answered it at the end. Real HTTP on 127.0.0.1, JSONL
// files, a stored (not live) session whose reads past its first turn wait for the test.
import { describe, expect, it, vi } from 'vitest'
import { DefaultChatTransport, type UIMessage } from 'ai'
import type { Store } from '@bosun/core'
import { listen } from '../src/index.js'
import { PlainChat } from './ai-sdk-chat-helpers.js'
import { makeHost, perTest, waitFor } from './helpers.js'

const t = perTest()

/**
 * A chat of three turns made on one host, then a second host on the same files whose store holds
 * every read past the first turn until `release()`: `held` reads waiting, `readAfterRelease` once
 * a held one has been answered. `whole` is the chat as the first host's client had it.
 */
async function heldAfterFirstTurn(id: string) {
  const answers = () => [{ text: 'one' }, { text: 'two' }, { text: 'three' }]
  const first = makeHost(t.dir, answers, { limits: { keepAliveMs: 200, pageSize: 4 } })
  const server = await listen(first.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  const chat = new PlainChat(id, new DefaultChatTransport<UIMessage>({ api: `${server.url}/v1/ai-sdk/chat` }))
  for (const text of ['a', 'b', 'c']) await chat.sendMessage({ text })
  expect(chat.messages).toHaveLength(6)
  const whole = JSON.parse(JSON.stringify(chat.messages)) as unknown
  await server.close()
  await first.host.close()
  await first.store.close?.()

  // Another host on the same files: the session is read from the store, a page at a time.
  const second = makeHost(t.dir, answers, { limits: { keepAliveMs: 200, pageSize: 4 } })
  t.closing.push(second.store, second.host)
  const store = second.store as Store & { readEvents: NonNullable<Store['readEvents']> }
  const readEvents = store.readEvents.bind(store)
  const logged = await readEvents(id, 0, 1000)
  const firstTurnEnd = logged.find((e) => e.type === 'turn/end')!.seq
  expect(logged.at(-1)!.seq).toBeGreaterThan(firstTurnEnd + 8)
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
  const state = { held: 0, readAfterRelease: false, whole, host: second.host, release }
  store.readEvents = async (session, from, limit) => {
    if (from <= firstTurnEnd) return readEvents(session, from, limit)
    state.held++
    await released
    const events = await readEvents(session, from, limit)
    state.readAfterRelease = true
    return events
  }
  return state
}

/** Reads `response`'s body until the first turn's answer has come: the reader, its decoder and the text so far. */
async function readToFirstTurn(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let sent = ''
  await waitFor(async () => {
    const { value } = await reader.read()
    sent += decoder.decode(value, { stream: true })
    return sent.includes('"bosun-turn-1"') || undefined
  }, 30_000, 'the first turn\'s answer, sent before the rest of the log is read')
  return { reader, decoder, sent }
}

describe('AI SDK chat: loading the messages back, streamed', () => {
  it('sends the messages of the pages read so far while a later page is still being read, and the whole chat at the end', { timeout: 60_000 }, async () => {
    const state = await heldAfterFirstTurn('long')
    const served = await listen(state.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(served)
    const response = await fetch(`${served.url}/v1/ai-sdk/chat/long/messages`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    // The first turn's messages arrive while the read past it waits.
    const { reader, decoder, sent } = await readToFirstTurn(response)
    let text = sent
    // Asked for more, the host reads on — and waits at the held read, the rest not sent.
    const next = reader.read()
    await waitFor(() => state.held > 0, 30_000, 'the host to read past the first turn')
    expect(text).not.toContain('"bosun-turn-3"')
    state.release()
    const { value } = await next
    text += decoder.decode(value, { stream: true })
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(JSON.parse(text)).toEqual(state.whole)
  })

  it('a client that goes away mid-chat ends the reads quietly: no failure logged', { timeout: 60_000 }, async () => {
    const state = await heldAfterFirstTurn('gone')
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    t.closing.push({ close: async () => logged.mockRestore() })
    // The host's own fetch: the test cancels the response body itself, as the server does when its client goes away.
    const response = await state.host.fetch(new Request('http://127.0.0.1/v1/ai-sdk/chat/gone/messages'))
    const { reader } = await readToFirstTurn(response)
    // Asked for more, the host reads on and waits at the held read; the client goes away meanwhile.
    void reader.read().catch(() => {})
    await waitFor(() => state.held > 0, 30_000, 'the host to read past the first turn')
    await reader.cancel()
    state.release()
    await waitFor(() => state.readAfterRelease, 30_000, 'the held read to end')
    // The page read is folded and its messages would go out next: a few turns of the event loop.
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
    expect(logged.mock.calls.flat().join('\n')).not.toContain('loading the chat messages')
  })
})
