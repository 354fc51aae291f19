// A request for a subagent's child that arrives between its `subagent/spawned` and the creation of
// its session waits for the parent's spawn (children-cold.test.ts), but not forever: past
// `limits.spawnWaitMs` it is answered `503 session-unavailable` with `retry-after`, and a parent
// that closes meanwhile ends the wait at once. Real HTTP on 127.0.0.1, a store whose `create` of
// a child the test holds, the scripted model.
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, memoryStore, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type RunningServer } from '../src/index.js'
import { call, childOf } from './children-helpers.js'
import { waitFor } from './helpers.js'

const closing: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const item of closing.splice(0).reverse()) await item.close()
})

/** A memory store whose `create` of a child (a header with a delegation) waits until `release()`; `asked` lists the ids whose header was read. */
function heldChildStore(): { store: Store; release(): void; readonly creating: boolean; asked: string[] } {
  const base = memoryStore()
  let release!: () => void
  const made = new Promise<void>((resolve) => (release = resolve))
  const state = { creating: false, asked: [] as string[] }
  const store: Store = {
    ...base,
    create: async (header, seed) => {
      if (header.delegation) {
        state.creating = true
        await made
      }
      return base.create(header, seed)
    },
    header: async (id) => {
      const header = await base.header!(id)
      state.asked.push(id)
      return header
    },
  }
  return { store, release, get creating() { return state.creating }, asked: state.asked }
}

/** A host on 127.0.0.1 whose root session spawns a background child at its first message. */
async function start(store: Store, spawnWaitMs: number): Promise<{ url: string; server: RunningServer; host: ReturnType<typeof createHost> }> {
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({
      model: scripted({ responses: [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }] }),
      store, sessionId, plugins: [subagents],
    }),
    limits: { keepAliveMs: 200, spawnWaitMs },
  })
  closing.push(host)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  closing.push(server)
  return { url: server.url, server, host }
}

/** The root's child once its spawn is logged and its session is on its way (held in `create`). */
async function spawning(url: string, held: ReturnType<typeof heldChildStore>): Promise<string> {
  await call(url, 'POST', '/v1/sessions', { id: 'root' })
  await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan' })
  const child = await childOf(url, 'root')
  await waitFor(() => held.creating, 15_000, "the child's session to be on its way")
  return child
}

describe('a request for a child whose spawn does not finish', () => {
  it('is answered 503 session-unavailable with retry-after once spawnWaitMs passes; the child takes it once its session is made', async () => {
    const held = heldChildStore()
    const { url } = await start(held.store, 150)
    // Pushed after the host, so it runs before the host's close: a parent closes its children first.
    closing.push({ close: async () => held.release() })
    const child = await spawning(url, held)
    const response = await fetch(`${url}/v1/sessions/${child}/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientMessageId: 'early', content: 'early question' }),
    })
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('5')
    const { error } = await response.json() as { error: { code: string; message: string; details: Record<string, unknown> } }
    expect(error.code).toBe('session-unavailable')
    expect(error.message).toMatch(/parent "root" is still making it .*Retry in 5 s/)
    expect(error.details).toEqual({ id: child, parentSessionId: 'root', retryAfter: 5 })
    // Nothing was admitted anywhere; once the store makes the session, a retry is taken.
    held.release()
    await waitFor(async () => (await call(url, 'GET', `/v1/sessions/${child}/events?limit=1000`)).body.events?.some((e: { type: string }) => e.type === 'user/message'), 15_000, "the child's task")
    expect((await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'early', content: 'early question' })).status).toBe(202)
  })

  it('ends when the parent closes meanwhile, however long spawnWaitMs is: 503 session-unavailable, saying so', async () => {
    const held = heldChildStore()
    const { url, host } = await start(held.store, 600_000)
    closing.push({ close: async () => held.release() })
    const child = await spawning(url, held)
    let answered = false
    const sending = call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'early', content: 'early question' }).finally(() => (answered = true))
    // The request read the child's header (none) and is waiting for the parent; a round trip later it still is.
    await waitFor(() => held.asked.includes(child), 15_000, "the request to ask for the child's header")
    expect((await call(url, 'GET', '/v1/sessions/root')).status).toBe(200)
    expect(answered).toBe(false)
    const parent = (await host.sessions.peek('root'))!.agent
    // Its close cannot finish while the spawn is held (it closes its children first), but it ends the wait at once.
    void parent.close()
    const answer = await sending
    expect(answer.status).toBe(503)
    expect(answer.body.error).toMatchObject({ code: 'session-unavailable', details: { id: child, parentSessionId: 'root', retryAfter: 5 } })
    expect(answer.body.error.message).toMatch(/parent "root" closed before the child's session was made/)
  })
})
