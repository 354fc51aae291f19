// The AI SDK chat stream's `finish` goes out once the turn is stored: useChat's status turns
// `ready` at the finish, and a page that reloads the chat then (GET …/messages) — on a cluster
// through a host that reads committed events only — must find the whole turn. Before, the finish
// was sent as the turn/end was appended, ahead of the store's write-behind: nothing had made the
// turn's end durable when the client learned the turn was over. Real HTTP on 127.0.0.1, JSONL
// files; the writer's flushes are watched to know what was stored when the finish arrived.
import { describe, expect, it } from 'vitest'
import type { SessionWriter, Store, StoredSession } from '@bosun/core'
import { listen } from '../src/index.js'
import { makeHost, perTest } from './helpers.js'

const t = perTest()

/** Wraps every writer `store` hands out: `stored()` is the highest seq a resolved flush covers. */
function watchFlushes(store: Store): { stored: () => number; turnEnd: () => number | undefined } {
  let stored = -1
  let appended = -1
  let turnEnd: number | undefined
  const wrap = (writer: SessionWriter): void => {
    const append = writer.append.bind(writer)
    const flush = writer.flush.bind(writer)
    writer.append = (event) => {
      appended = event.seq
      if (event.type === 'turn/end') turnEnd = event.seq
      append(event)
    }
    writer.flush = async () => {
      const upTo = appended
      await flush()
      stored = Math.max(stored, upTo)
    }
  }
  for (const method of ['create', 'open'] as const) {
    const original = (store[method] as (...args: unknown[]) => Promise<StoredSession | undefined>).bind(store)
    ;(store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const made = await original(...args)
      if (made !== undefined) wrap(made.writer)
      return made
    }
  }
  return { stored: () => stored, turnEnd: () => turnEnd }
}

describe('AI SDK chat: the finish follows the store', () => {
  it('the turn is stored through its turn/end when the stream says finish', async () => {
    const { host, store } = makeHost(t.dir, () => [{ text: 'stored answer', chunkSize: 4 }])
    const flushes = watchFlushes(store)
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const response = await fetch(`${server.url}/v1/ai-sdk/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'c1', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
    })
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    let storedAtFinish: number | undefined
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
      // Noted the moment the finish arrives: what the store had taken by then.
      if (storedAtFinish === undefined && text.includes('"type":"finish"')) storedAtFinish = flushes.stored()
    }
    expect(text).toContain('stored answer'.slice(0, 4))
    expect(flushes.turnEnd()).toBeGreaterThan(0)
    expect(storedAtFinish).toBeGreaterThanOrEqual(flushes.turnEnd()!)
  })
})
