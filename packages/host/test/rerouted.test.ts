import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, definePlugin, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { json, req, tempDir, waitFor } from './helpers.js'

/**
 * A real JSONL store whose flushes the test can hold: the first step of a turn awaits a flush
 * (the claim checkpoint) without racing the abort, so a held flush keeps an aborted turn open —
 * the window in which a steer can no longer reach the running turn — for as long as the test
 * needs, with no timing involved.
 */
function holdableStore(dir: string): { store: Store; hold(): void; release(): void; waiting(): boolean } {
  const inner = jsonlStore({ dir })
  let gate: Promise<void> | undefined
  let open: (() => void) | undefined
  let waiters = 0
  const wrap = <T extends { writer: { flush(): Promise<void> } }>(stored: T): T => {
    const flush = stored.writer.flush.bind(stored.writer)
    stored.writer.flush = async () => {
      if (gate) {
        waiters++
        await gate
        waiters--
      }
      return flush()
    }
    return stored
  }
  const store: Store = {
    name: 'holdable-jsonl',
    create: async (header, seed) => wrap(await inner.create(header, seed)),
    open: async (id) => {
      const stored = await inner.open(id)
      return stored && wrap(stored)
    },
    read: (id) => inner.read!(id),
    list: () => inner.list(),
    close: () => inner.close(),
  }
  return {
    store,
    hold: () => { gate = new Promise((r) => { open = r }) },
    release: () => { gate = undefined; open?.() },
    waiting: () => waiters > 0,
  }
}

// Any pre-step tap makes the first step flush its claim before the tap runs.
const passThrough = definePlugin({ name: 'pass-through', setup: (ctx) => { ctx.hooks.preStep.tapPromise('pass-through', async (decision) => decision) } })

let dir: string
let cleanup: () => Promise<void>
let host: Host
let held: ReturnType<typeof holdableStore>

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  held = holdableStore(dir)
  host = createHost({
    store: held.store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [{ text: 'never sent' }, { text: 'the steer, in its own turn' }] }), store, sessionId, plugins: [passThrough] }),
    limits: { keepAliveMs: 200 },
  })
})
afterEach(async () => {
  held.release()
  await host.close()
  // Else its journal file stays open until the garbage collector closes it.
  await held.store.close()
  await cleanup()
})

describe('a steer that can no longer reach the running turn', () => {
  it('is admitted to next-turn and reported rerouted; it runs as the next turn', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    held.hold()
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'go', content: 'go' })
    await waitFor(() => held.waiting(), 15_000, 'turn 1 waiting on its claim flush')
    // Stop keeps the queue; the aborted turn cannot end while its flush is held.
    const canceled = await req(host, 'POST', '/v1/sessions/s/cancel', { keepInbox: true })
    expect(canceled.status).toBe(200)
    expect((await json(req(host, 'GET', '/v1/sessions/s'))).status).toBe('running')

    const receipt = await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'steer', content: 'change course', delivery: 'steer' }))
    expect(receipt).toMatchObject({ messageId: 'steer', delivery: 'steer', lane: 'next-turn', rerouted: true, position: 0, duplicate: false })
    // A retry answers the same receipt.
    expect(await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'steer', content: 'change course', delivery: 'steer' })))
      .toMatchObject({ messageId: 'steer', lane: 'next-turn', rerouted: true, duplicate: true })

    held.release()
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/s/messages/steer'))).state === 'claimed', 15_000, 'the steer claimed')
    const status = await json(req(host, 'GET', '/v1/sessions/s/messages/steer'))
    expect(status).toMatchObject({ state: 'claimed', turn: 2, lane: 'next-turn' })
    const events = (await json(req(host, 'GET', '/v1/sessions/s/events?limit=1000'))).events as { type: string; data: any }[]
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason.kind)[0]).toBe('aborted')
  })

  it('while the turn runs normally, a steer is not rerouted', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 'n' })
    held.hold()
    await req(host, 'POST', '/v1/sessions/n/messages', { clientMessageId: 'go', content: 'go' })
    await waitFor(() => held.waiting(), 15_000, 'turn 1 waiting on its claim flush')
    const receipt = await json(req(host, 'POST', '/v1/sessions/n/messages', { clientMessageId: 'steer', content: 'also', delivery: 'steer' }))
    expect(receipt).toMatchObject({ lane: 'next-step', delivery: 'steer', position: 0 })
    expect(receipt.rerouted).toBeUndefined()
    held.release()
    await waitFor(async () => (await json(req(host, 'GET', '/v1/sessions/n/messages/steer'))).state === 'claimed', 15_000, 'the steer claimed')
    expect(await json(req(host, 'GET', '/v1/sessions/n/messages/steer'))).toMatchObject({ state: 'claimed', turn: 1, stepped: true })
  })
})
