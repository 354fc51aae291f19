// GET /v1/sessions and the host stream's hello list the store (store.list()), then build each
// session's row: from its live agent when it is live then, else from the list entry. A session
// whose agent opens, runs a turn and closes after the list was read but before its row is built
// is no longer live, and its list entry predates the turn — the row showed the old lastSeq and
// queue. The rows of sessions that changed while the list was read are read again. The list is
// held on a gate (after the store answered it) while the session runs its turn and retires.
import { expect, it } from 'vitest'
import { createAgent, findLiveAgent, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, type Host } from '../src/index.js'
import { json, perTest, req, SseReader, waitFor } from './helpers.js'

const t = perTest()

/** A JSONL store whose list(), while `hold` is armed, answers only once the test opens the gate — with what the store read before. */
function gatedList(store: Store) {
  const state = { armed: false, read: false, open: () => {} }
  let opened = Promise.resolve()
  const gated = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      if (key !== 'list') return (value as (...args: unknown[]) => unknown).bind(target)
      return async () => {
        const rows = await target.list()
        if (state.armed) {
          state.armed = false
          state.read = true
          await opened
        }
        return rows
      }
    },
  })
  return {
    store: gated,
    state,
    arm(): void {
      opened = new Promise<void>((resolve) => { state.open = resolve })
      state.read = false
      state.armed = true
    },
  }
}

function hostOn(store: Store): Host {
  // idleMs is short so the session retires (its agent closes) on its own after its turn; each wait on it is a condition.
  const host = createHost({ store, agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }), limits: { idleMs: 20, keepAliveMs: 200 } })
  // The store after the host (the list closes in reverse): a store left open keeps its journal file open.
  t.closing.push(store, host)
  return host
}

/** Until the session's agent is closed and gone from this process: the store has all of its log. */
async function retired(host: Host, store: Store, id: string): Promise<void> {
  await waitFor(async () => host.sessions.liveIds().length === 0 && (await host.sessions.peek(id)) === undefined && findLiveAgent(store, id) === undefined, 15_000, `session ${id} to retire`)
}

/** Runs one turn on `id` (the host opens it), then waits for it to retire. */
async function runTurnAndRetire(host: Host, store: Store, id: string, text: string): Promise<void> {
  expect((await req(host, 'POST', `/v1/sessions/${id}/messages?wait=durable`, { clientMessageId: text, content: text })).status).toBe(202)
  await waitFor(async () => (await store.read!(id))?.events.some((e) => e.type === 'turn/end' && (e.data as { turn: number }).turn === 1), 15_000, 'the turn to end in the store')
  await retired(host, store, id)
}

type Row = { id: string; lastSeq: number; loaded: boolean; status: string; queue: unknown }

async function storedLastSeq(store: Store, id: string): Promise<number> {
  return (await store.read!(id))!.events.length - 1
}

it('GET /v1/sessions: a session that ran a turn and closed while the list was read shows its new lastSeq', async () => {
  const { store, state, arm } = gatedList(jsonlStore({ dir: t.dir }))
  const host = hostOn(store)
  expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
  await retired(host, store, 's')
  expect(await storedLastSeq(store, 's')).toBe(-1)

  arm()
  const listing = json<{ sessions: Row[] }>(req(host, 'GET', '/v1/sessions'))
  await waitFor(() => state.read, 15_000, 'the list to be read')
  await runTurnAndRetire(host, store, 's', 'hello')
  const lastSeq = await storedLastSeq(store, 's')
  expect(lastSeq).toBeGreaterThan(0)
  state.open()

  const row = (await listing).sessions.find((s) => s.id === 's')!
  expect(row).toMatchObject({ lastSeq, loaded: false, status: 'idle', queue: { 'next-turn': 0, 'next-step': 0 } })
})

it('GET /v1/stream: the hello shows a session that ran a turn and closed while its list was read as it is now', async () => {
  const { store, state, arm } = gatedList(jsonlStore({ dir: t.dir }))
  const host = hostOn(store)
  expect((await req(host, 'POST', '/v1/sessions', { id: 's' })).status).toBe(201)
  await retired(host, store, 's')

  arm()
  const feed = new SseReader(await req(host, 'GET', '/v1/stream'))
  try {
    const hello = feed.until((all) => all.some((f) => f.event === 'hello'), 30_000)
    await waitFor(() => state.read, 15_000, 'the hello\'s list to be read')
    await runTurnAndRetire(host, store, 's', 'hello')
    const lastSeq = await storedLastSeq(store, 's')
    state.open()

    const frames = await hello
    const row = (frames.find((f) => f.event === 'hello')!.data as { sessions: Row[] }).sessions.find((s) => s.id === 's')!
    expect(row).toMatchObject({ lastSeq, loaded: false, status: 'idle' })
  } finally {
    await feed.cancel()
  }
})

it('GET /v1/sessions: a session left alone while another changed keeps the row of its list entry', async () => {
  const { store, state, arm } = gatedList(jsonlStore({ dir: t.dir }))
  const host = hostOn(store)
  expect((await req(host, 'POST', '/v1/sessions', { id: 'quiet' })).status).toBe(201)
  expect((await req(host, 'POST', '/v1/sessions', { id: 'busy' })).status).toBe(201)
  await runTurnAndRetire(host, store, 'quiet', 'before')
  await retired(host, store, 'busy')

  arm()
  const listing = json<{ sessions: Row[] }>(req(host, 'GET', '/v1/sessions'))
  await waitFor(() => state.read, 15_000, 'the list to be read')
  await runTurnAndRetire(host, store, 'busy', 'during')
  state.open()

  const rows = (await listing).sessions
  expect(rows.find((s) => s.id === 'quiet')).toMatchObject({ lastSeq: await storedLastSeq(store, 'quiet') })
  expect(rows.find((s) => s.id === 'busy')).toMatchObject({ lastSeq: await storedLastSeq(store, 'busy') })
})
