import { describe, expect, it } from 'vitest'
import { createUserMessage } from '@bosun/core'
import { makeHost, perTest, req, stepGate, waitFor } from './helpers.js'

const t = perTest()
const decoder = new TextDecoder()

/**
 * A session whose turn is held at its pre-step, and `queue(depth)`: a follow-up queued behind it
 * (one splice, nothing logged after it) `depth` microtasks from now. Called just before a client
 * asks its stream for more, one of the depths lands after the stream's pull found nothing to send
 * and before it waits for the next signal. The keep-alive is far off: a lost wake-up shows as the
 * keep-alive coming before the change.
 */
async function heldSession(): Promise<{ get: (path: string) => Promise<ReadableStreamDefaultReader<Uint8Array>>; queue: (depth: number) => void }> {
  const gate = stepGate()
  const { host, store } = makeHost(t.dir, () => [], { limits: { keepAliveMs: 3000 } }, [gate.plugin])
  // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
  t.closing.push(store, { close: async () => { gate.open(); await host.close() } })
  expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
  expect((await req(host, 'POST', '/v1/sessions/s/messages', { content: 'held', clientMessageId: 'a' })).status).toBe(202)
  await waitFor(() => gate.waiting === 1)
  const live = (await host.sessions.peek('s'))!
  return {
    get: async (path) => {
      const reader = (await req(host, 'GET', path)).body!.getReader()
      expect(decoder.decode((await reader.read()).value)).toContain('event: hello')
      return reader
    },
    queue: (depth) => {
      let hops: Promise<void> = Promise.resolve()
      for (let i = 0; i < depth; i++) hops = hops.then(() => {})
      void hops.then(() => live.agent.followup(createUserMessage('queued', { id: `b${depth}`, source: { kind: 'user', delivery: 'followup' } })))
    },
  }
}

describe('a stream with nothing left to send', () => {
  it('session stream: sends an event appended while its pull was between reading the log and waiting, not at the keep-alive', async () => {
    const session = await heldSession()
    const reader = await session.get('/v1/sessions/s/stream?from=tail')
    for (let depth = 0; depth < 6; depth++) {
      session.queue(depth)
      const next = decoder.decode((await reader.read()).value)
      expect(next, `appended ${depth} microtasks after the read`).toContain(`"id":"b${depth}"`)
    }
    await reader.cancel()
  })

  it('host stream (GET /v1/stream): sends a change made while its pull was between reading and waiting, not at the keep-alive', async () => {
    const session = await heldSession()
    const reader = await session.get('/v1/stream')
    for (let depth = 0; depth < 8; depth++) {
      session.queue(depth)
      let next = decoder.decode((await reader.read()).value)
      // The status frame of the change before this one may come first (its summary was read after this change).
      while (!next.includes('keep-alive') && !next.includes(`"next-turn":${depth + 1}`)) next = decoder.decode((await reader.read()).value)
      expect(next, `changed ${depth} microtasks after the read`).toContain(`"next-turn":${depth + 1}`)
    }
    await reader.cancel()
  })
})
