import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { holdTool, json, req, tempDir, waitFor } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
let host: Host
/** Closed after the host: a store left open keeps its journal file open. */
let store: ReturnType<typeof jsonlStore>

let hold: ReturnType<typeof holdTool>

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  hold = holdTool()
  store = jsonlStore({ dir })
  host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({
      model: scripted({ responses: [{ toolCalls: [{ name: 'hold' }] }, { text: 'after the steer' }, { toolCalls: [{ name: 'hold' }] }, { text: 'stopped' }] }),
      store, sessionId, tools: [hold.tool],
    }),
    limits: { keepAliveMs: 200 },
  })
})
afterEach(async () => {
  hold.release()
  await host.close()
  await store.close()
  await cleanup()
})

const events = async (id: string): Promise<{ seq: number; type: string; data: any }[]> => (await json(req(host, 'GET', `/v1/sessions/${id}/events?limit=1000`))).events
const held = (id: string, turn: number) => waitFor(async () => (await events(id)).some((e) => e.type === 'tool/call' && e.data.turn === turn), 15_000, `turn ${turn} held in its tool`)
const idle = (id: string) => waitFor(async () => (await json(req(host, 'GET', `/v1/sessions/${id}`))).status === 'idle', 15_000, 'idle')

describe('POST /v1/sessions/:id/inbox/:messageId/promote', () => {
  it('moves a queued follow-up into the running turn, which takes it at its next step; a second promote misses', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 's' })
    await req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'go', content: 'go' })
    await held('s', 1)
    const queued = await json(req(host, 'POST', '/v1/sessions/s/messages', { clientMessageId: 'q', content: 'also this' }))
    expect(queued).toMatchObject({ lane: 'next-turn', position: 0 })

    const ghost = await req(host, 'POST', '/v1/sessions/s/inbox/ghost/promote', {})
    expect(ghost.status).toBe(404)
    expect((await json(ghost)).error.code).toBe('queue-item-not-found')

    const promoted = await req(host, 'POST', '/v1/sessions/s/inbox/q/promote', {})
    expect(promoted.status).toBe(200)
    const body = await json(promoted)
    expect(body).toMatchObject({ promoted: 'q', lane: 'next-step', position: 0 })
    expect(body.inbox['next-turn']).toEqual([])
    expect(body.inbox['next-step'].map((m: { id: string }) => m.id)).toEqual(['q'])
    expect(await json(req(host, 'GET', '/v1/sessions/s/messages/q'))).toMatchObject({ state: 'queued', lane: 'next-step', position: 0, admittedSeq: queued.seq })

    // One logged move: a pure removal marked "moved", then the insertion into next-step.
    const log = await events('s')
    const moved = log.findIndex((e) => e.type === 'agent/inbox/spliced' && e.data.outcome === 'moved')
    expect(log[moved]!.data).toMatchObject({ target: 'next-turn', removedCount: 1, inserted: [] })
    expect(log[moved + 1]!.data).toMatchObject({ target: 'next-step', inserted: [{ id: 'q' }] })

    hold.release()
    await idle('s')
    // It rode turn 1's next step (no turn of its own).
    expect(await json(req(host, 'GET', '/v1/sessions/s/messages/q'))).toMatchObject({ state: 'claimed', turn: 1, stepped: true })
    const after = await events('s')
    expect(after.filter((e) => e.type === 'turn/start')).toHaveLength(1)
    const again = await req(host, 'POST', '/v1/sessions/s/inbox/q/promote', {})
    expect(again.status).toBe(404)
    expect((await json(again)).error.code).toBe('queue-item-not-found')
  })

  it('with no turn running there is no step to steer: 409 steer-unavailable, and the message stays queued', async () => {
    await req(host, 'POST', '/v1/sessions', { id: 'p' })
    await req(host, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'go', content: 'go' })
    await held('p', 1)
    await req(host, 'POST', '/v1/sessions/p/messages', { clientMessageId: 'parked', content: 'later' })
    await req(host, 'POST', '/v1/sessions/p/cancel', { keepInbox: true })
    await idle('p')
    const missed = await req(host, 'POST', '/v1/sessions/p/inbox/parked/promote', {})
    expect(missed.status).toBe(409)
    const error = (await json(missed)).error
    expect(error.code).toBe('steer-unavailable')
    expect(error.message).toMatch(/stays queued/)
    expect(await json(req(host, 'GET', '/v1/sessions/p/messages/parked'))).toMatchObject({ state: 'queued', lane: 'next-turn', position: 0 })
    expect((await events('p')).some((e) => e.data?.outcome === 'moved')).toBe(false)
  })
})
