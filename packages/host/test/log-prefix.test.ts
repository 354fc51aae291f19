import { describe, expect, it } from 'vitest'
import { createAgent, sealIdleSessions, type SessionEvent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { fingerprinted, LogHash } from '../src/client-log-hash.js'
import { SLICE_EVENTS, logPrefix, prefixReady, prefixStats } from '../src/log-prefix.js'

/** A log of `n` events, every third a chunk (left out of the fingerprint). */
function log(n: number): SessionEvent[] {
  return Array.from({ length: n }, (_, seq) =>
    Object.freeze(seq % 3 === 2
      ? { seq, time: 1_700_000_000_000 + seq, type: 'assistant/chunk', data: { chunk: { type: 'text-delta', text: `é${seq}` } } }
      : { seq, time: 1_700_000_000_000 + seq, type: 'user/message', data: { message: { role: 'user', content: `message ${seq} 😀` } } }) as SessionEvent)
}

/** What the client computes from the frames it received. */
function clientHash(events: readonly SessionEvent[], seq: number): string {
  const hash = new LogHash()
  for (const event of events.slice(0, seq + 1)) if (fingerprinted(event.type)) hash.add(JSON.stringify(event))
  return hash.hex
}

describe('the hello\'s prefix fingerprint', () => {
  it('is computed a slice per macrotask: a long log gives the event loop back while it is hashed, and the result is the client\'s', async () => {
    const events = log(3 * SLICE_EVENTS + 10)
    const seq = events.length - 1
    const yieldsBefore = prefixStats.yields
    let ranMeanwhile = 0
    // Macrotasks queued behind the first slice: each must run before the hashing ends.
    const ticks = [setImmediate(() => ranMeanwhile++), setImmediate(() => ranMeanwhile++)]
    let done = false
    const ready = prefixReady(events, seq).then(() => (done = true))
    expect(done).toBe(false)
    await ready
    expect(ranMeanwhile).toBe(2)
    expect(prefixStats.yields - yieldsBefore).toBe(3)
    for (const tick of ticks) clearImmediate(tick)
    expect(logPrefix(events, seq)).toEqual({ seq, hash: clientHash(events, seq) })
    // Hashed once: asking again (a second client's hello) neither yields nor changes it.
    await prefixReady(events, seq)
    expect(prefixStats.yields - yieldsBefore).toBe(3)
    // Any earlier cursor is answered from the same table.
    expect(logPrefix(events, 1234)).toEqual({ seq: 1234, hash: clientHash(events, 1234) })
  })

  it('a log shorter than a slice is ready at once; the empty prefix is the empty log\'s', async () => {
    const events = log(10)
    const yieldsBefore = prefixStats.yields
    await prefixReady(events, 9)
    expect(prefixStats.yields).toBe(yieldsBefore)
    expect(logPrefix(events, 9).hash).toBe(clientHash(events, 9))
    expect(logPrefix(events, -1)).toEqual({ seq: -1, hash: LogHash.EMPTY })
  })

  it('of a session is kept across a seal that lands between prefixReady and logPrefix: the hello hashes nothing then', async () => {
    const agent = await createAgent({ model: scripted({ responses: [{ text: 'a long answer in short chunks', chunkSize: 2 }] }) })
    agent.followup('hi')
    await agent.whenIdle()
    const { session } = agent
    const seq = session.length - 1
    const viewBefore = session.events
    const expected = clientHash(session.events, seq)
    await prefixReady(session, seq)
    const hashed = prefixStats.hashed
    expect(await sealIdleSessions()).toBeGreaterThan(0)
    // The seal replaced `session.events` (a chain keyed on it would start over, synchronously here).
    expect(session.events).not.toBe(viewBefore)
    expect(logPrefix(session, seq)).toEqual({ seq, hash: expected })
    expect(prefixStats.hashed).toBe(hashed)
    await agent.close()
  })
})
