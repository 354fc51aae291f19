import { describe, expect, it } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '../create-agent.js'
import { memoryStore } from '../store/memory.js'
import type { SessionWriter } from '../store/types.js'
import { Session } from './session.js'

// `session.durableLength`: what a flush has made durable, for a host answering a duplicate send
// ("durable: true") without flushing again — the loop's own flushes count too.

/** A writer whose flushes the test settles by hand. */
function heldWriter() {
  const flushes: { resolve: () => void; reject: (error: Error) => void }[] = []
  const writer: SessionWriter = {
    append: () => {},
    flush: () => new Promise<void>((resolve, reject) => flushes.push({ resolve, reject })),
    close: async () => {},
  }
  return { writer, flushes }
}

describe('session.durableLength', () => {
  it('counts the stored log as durable, and moves on only when a flush resolves, to the length the flush began at', async () => {
    const { writer, flushes } = heldWriter()
    const session = new Session({ id: 's', version: 1, createdAt: 0 }, [], { writer })
    expect(session.durableLength).toBe(0)
    session.append('test/a', {})
    session.append('test/a', {})
    const first = session.flush()
    session.append('test/a', {}) // after the flush began: not covered by it
    expect(session.durableLength).toBe(0)
    flushes[0]!.resolve()
    await first
    expect(session.durableLength).toBe(2)
    const second = session.flush()
    flushes[1]!.reject(new Error('disk full'))
    await expect(second).rejects.toThrow('disk full')
    expect(session.durableLength).toBe(2)
  })

  it('a resumed session starts with its stored log durable; the loop\'s flush before each request moves it', async () => {
    const store = memoryStore()
    const first = await createAgent({ model: scripted(), store, sessionId: 'r' })
    first.followup('hello')
    await first.whenIdle()
    const stored = first.session.length
    await first.close()
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'ok' }] }), store, sessionId: 'r' })
    expect(agent.session.durableLength).toBe(stored)
    const sent = agent.followup('again')
    await agent.whenIdle()
    const admitted = agent.session.events.findIndex((e) => e.type === 'agent/inbox/spliced' && JSON.stringify(e.data).includes(sent.id))
    // No one called flush(): the loop's flush before the model request covered the send's splice.
    expect(agent.session.durableLength).toBeGreaterThan(admitted)
    await agent.close()
  })

  it('is 0 without a writer', () => {
    const session = new Session({ id: 's', version: 1, createdAt: 0 }, [])
    session.append('test/a', {})
    expect(session.durableLength).toBe(0)
  })
})
