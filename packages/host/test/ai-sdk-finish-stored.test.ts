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

/**
 * Wraps every writer `store` hands out: `stored()` is the highest seq a resolved flush covers.
 * With `hold`, a flush asked for after the turn's end was appended waits for `release()` (a stalled store).
 */
function watchFlushes(store: Store, options: { hold?: boolean } = {}): { stored: () => number; turnEnd: () => number | undefined; holding: () => boolean; release: () => void } {
  let stored = -1
  let appended = -1
  let turnEnd: number | undefined
  let holding = false
  let release!: () => void
  const released = new Promise<void>((resolve) => { release = resolve })
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
      if (options.hold === true && turnEnd !== undefined) {
        holding = true
        await released
      }
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
  return { stored: () => stored, turnEnd: () => turnEnd, holding: () => holding, release }
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
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  })

  it('a store slow to take the turn\'s end holds the finish, not the stream: keep-alives go on meanwhile', async () => {
    const { host, store } = makeHost(t.dir, () => [{ text: 'slow store' }], { limits: { keepAliveMs: 100 } })
    const flushes = watchFlushes(store, { hold: true })
    const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    t.closing.push(store, host, server)
    const response = await fetch(`${server.url}/v1/ai-sdk/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'c2', messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
    })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    let heldAt: number | undefined
    let keptAlive = false
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
      if (heldAt === undefined && flushes.holding()) heldAt = text.length
      // A keep-alive while the store holds the turn's end: then the store is let go.
      if (!keptAlive && heldAt !== undefined && text.indexOf(': keep-alive', heldAt) >= 0) {
        keptAlive = true
        expect(text).not.toContain('"type":"finish"')
        flushes.release()
      }
    }
    expect(keptAlive).toBe(true)
    expect(text).toContain('"type":"finish"')
    expect(text.indexOf('"type":"finish"')).toBeGreaterThan(text.lastIndexOf(': keep-alive'))
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
  })
})
