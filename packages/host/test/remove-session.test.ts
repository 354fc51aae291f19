// DELETE /v1/sessions/:id (docs/host.md "Removing a session"): a session — idle, running, with
// subagent children — is stopped, closed and removed from the store; its streams end with
// `session.removed`, the host stream tells every list, and a request racing the removal never
// opens it again. Real HTTP on 127.0.0.1, the memory store (wrapped where a test holds its
// remove, or reads a session without opening it), the scripted model.
import { afterEach, describe, expect, it } from 'vitest'
import { BosunError, createAgent, ErrorCodes, findLiveAgent, memoryStore, type Plugin, type Store } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import { createClient } from '../src/client.js'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { removalStats } from '../src/session-remove.js'
import { call, firstUserText, followHostStream, taskGate } from './children-helpers.js'
import { SseReader, stepGate, waitFor, type Frame } from './helpers.js'

const servers: RunningServer[] = []
const hosts: Host[] = []
const stores: Store[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const host of hosts.splice(0)) await host.close()
  for (const store of stores.splice(0)) await store.close()
})

/** A memory store whose `remove` waits for `release()` once `hold()` was called: a test can act while a removal is under way. */
function holdableStore(): { store: Store; hold(): void; release(): void; readonly waiting: boolean } {
  const inner = memoryStore()
  let gate: Promise<void> | undefined
  let open = (): void => {}
  let waiting = false
  const store: Store = {
    ...inner,
    name: 'holdable-memory',
    async remove(id) {
      if (gate !== undefined) {
        waiting = true
        await gate
        waiting = false
      }
      return inner.remove!(id)
    },
  }
  return {
    store,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve))
    },
    release: () => {
      gate = undefined
      open()
    },
    get waiting() {
      return waiting
    },
  }
}

/** A memory store that reads a session without opening it (`read`), as JSONL and PostgreSQL do: the host streams an unopened session from it (cold-stream.ts). */
function readableMemoryStore(): Store {
  const inner = memoryStore()
  return {
    ...inner,
    name: 'readable-memory',
    async read(id) {
      const header = await inner.header!(id)
      return header === undefined ? undefined : { header, events: await inner.readEvents!(id, 0, Number.MAX_SAFE_INTEGER) }
    },
  }
}

/** Scripted by the first user message: "spawn" starts a background child on "child task"; anything else answers. */
const answer = (request: Parameters<typeof firstUserText>[0]) => firstUserText(request) === 'spawn'
  ? (request.messages.some((m) => m.role === 'assistant') ? { text: 'spawned' } : { toolCalls: [{ name: 'spawn_agent', id: 'sp', args: { task: 'child task', mode: 'background' } }] })
  : { text: 'answered' }

async function start(store: Store, plugins: () => Plugin[] = () => []): Promise<{ host: Host; url: string }> {
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store, signal }) => createAgent({ model: scripted({ responses: Array.from({ length: 20 }, () => answer) }), store, sessionId, signal, plugins: plugins() }),
    limits: { keepAliveMs: 200 },
  })
  hosts.push(host)
  stores.push(store)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  servers.push(server)
  return { host, url: server.url }
}

const stream = async (url: string, path: string): Promise<SseReader> => {
  const response = await fetch(`${url}${path}`)
  expect(response.status).toBe(200)
  return new SseReader(response)
}
const removedFrames = (frames: Frame[]) => frames.filter((f) => f.event === 'session.removed').map((f) => f.data.id as string)
const listed = async (url: string) => ((await call(url, 'GET', '/v1/sessions')).body.sessions as { id: string }[]).map((s) => s.id)

describe('DELETE /v1/sessions/:id', () => {
  it('removes an idle session: 200 with its id, then 404 everywhere, gone from the list and the store; a second DELETE is 404', async () => {
    const store = memoryStore()
    const { url } = await start(store)
    await call(url, 'POST', '/v1/sessions', { id: 'idle' })
    await call(url, 'POST', '/v1/sessions/idle/messages', { clientMessageId: 'm', content: 'hello' })
    await waitFor(async () => (await call(url, 'GET', '/v1/sessions/idle')).body.status === 'idle' && (await call(url, 'GET', '/v1/sessions/idle/events')).body.lastSeq > 2)
    const removed = await call(url, 'DELETE', '/v1/sessions/idle')
    expect(removed).toEqual({ status: 200, body: { removed: ['idle'] } })
    expect((await call(url, 'GET', '/v1/sessions/idle')).status).toBe(404)
    expect((await call(url, 'GET', '/v1/sessions/idle/events')).status).toBe(404)
    expect(await listed(url)).not.toContain('idle')
    expect(await store.list()).toEqual([])
    expect(findLiveAgent(store, 'idle')).toBeUndefined()
    const again = await call(url, 'DELETE', '/v1/sessions/idle')
    expect(again.status).toBe(404)
    expect(again.body.error.code).toBe('session-not-found')
    // The id is free again: a create starts it empty.
    expect((await call(url, 'POST', '/v1/sessions', { id: 'idle' })).body.lastSeq).toBe(-1)
  })

  it('404 session-not-found for an id never stored; 400 for an invalid id', async () => {
    const { url } = await start(memoryStore())
    const missing = await call(url, 'DELETE', '/v1/sessions/nobody')
    expect(missing.status).toBe(404)
    expect(missing.body.error).toMatchObject({ code: 'session-not-found', details: { id: 'nobody' } })
    expect((await call(url, 'DELETE', `/v1/sessions/${encodeURIComponent('../x')}`)).status).toBe(400)
  })

  it('stops a running turn and closes the session first; its open stream ends with session.removed; nothing opens it again', async () => {
    const store = memoryStore()
    const gate = stepGate()
    const { url } = await start(store, () => [gate.plugin])
    await call(url, 'POST', '/v1/sessions', { id: 'busy' })
    const reader = await stream(url, '/v1/sessions/busy/stream')
    await call(url, 'POST', '/v1/sessions/busy/messages', { clientMessageId: 'go', content: 'go' })
    await call(url, 'POST', '/v1/sessions/busy/messages', { clientMessageId: 'queued', content: 'later' })
    await waitFor(() => gate.waiting > 0, 15_000, 'the turn held at its step')
    expect((await call(url, 'DELETE', '/v1/sessions/busy')).body).toEqual({ removed: ['busy'] })
    expect(findLiveAgent(store, 'busy')).toBeUndefined()
    // The stream got the turn's stop, then its last frame, and ended.
    const frames = await reader.until(() => reader.done || removedFrames(reader.frames).length > 0)
    expect(removedFrames(frames)).toEqual(['busy'])
    expect(frames.at(-1)).toEqual({ event: 'session.removed', data: { id: 'busy' } })
    await reader.until(() => reader.done).catch(() => {})
    expect(reader.done).toBe(true)
    // The held step let go: the canceled turn (and the cleared queue) run nothing, nothing is stored again.
    gate.open()
    expect((await call(url, 'GET', '/v1/sessions/busy')).status).toBe(404)
    expect(await store.list()).toEqual([])
    // A reconnect finds no session.
    expect((await fetch(`${url}/v1/sessions/busy/stream`)).status).toBe(404)
  })

  it('ends the stream of a session no agent has open (a cold stream) with session.removed', async () => {
    const store = readableMemoryStore()
    const { host, url } = await start(store)
    await call(url, 'POST', '/v1/sessions', { id: 'cold' })
    await call(url, 'POST', '/v1/sessions/cold/messages', { clientMessageId: 'm', content: 'hi' })
    await waitFor(async () => (await call(url, 'GET', '/v1/sessions/cold')).body.status === 'idle')
    // Closed (as after idleMs): the stream below is served from the stored log.
    await host.sessions.drop('cold')
    expect(await host.sessions.peek('cold')).toBeUndefined()
    const reader = await stream(url, '/v1/sessions/cold/stream?from=tail')
    await reader.until((frames) => frames.some((f) => f.event === 'hello'))
    expect(await host.sessions.peek('cold')).toBeUndefined()
    expect((await call(url, 'DELETE', '/v1/sessions/cold')).status).toBe(200)
    await reader.until(() => removedFrames(reader.frames).length > 0)
    expect(reader.frames.at(-1)).toEqual({ event: 'session.removed', data: { id: 'cold' } })
  })

  it('tells the host stream: session.removed for the id, no status of it after', async () => {
    const { url } = await start(memoryStore())
    await call(url, 'POST', '/v1/sessions', { id: 'listed' })
    await call(url, 'POST', '/v1/sessions', { id: 'stays' })
    const reader = await stream(url, '/v1/stream')
    await reader.until((frames) => frames.some((f) => f.event === 'hello'))
    expect(reader.frames[0]!.data.sessions.map((s: { id: string }) => s.id).sort()).toEqual(['listed', 'stays'])
    expect((await call(url, 'DELETE', '/v1/sessions/listed')).status).toBe(200)
    // Something after it: a status of another session, so that a late frame of the removed one would be read.
    await call(url, 'POST', '/v1/sessions/stays/messages', { clientMessageId: 'm', content: 'hi' })
    const frames = await reader.until((all) => removedFrames(all).length > 0 && all.some((f) => f.event === 'session.status' && f.data.id === 'stays' && f.data.status === 'idle' && f.data.lastSeq > 0))
    expect(removedFrames(frames)).toEqual(['listed'])
    const at = frames.findIndex((f) => f.event === 'session.removed')
    expect(frames.slice(at).filter((f) => f.data?.id === 'listed').map((f) => f.event)).toEqual(['session.removed'])
  })

  it('the typed client removes a session, and its hostStream() and stream() see session.removed (stream() ends after it)', async () => {
    const { url } = await start(memoryStore())
    const client = createClient({ baseUrl: url })
    await client.createSession('c1')
    const controller = new AbortController()
    const seen: string[] = []
    const following = (async () => {
      for await (const frame of client.stream('c1', { signal: controller.signal })) {
        seen.push(frame.event)
      }
    })()
    const list = followHostStream((options) => client.hostStream(options))
    await list.until((frames) => frames.some((f) => f.event === 'hello'))
    await waitFor(() => seen.includes('hello'))
    expect(await client.removeSession('c1')).toEqual({ removed: ['c1'] })
    await following
    expect(seen.at(-1)).toBe('session.removed')
    const frames = await list.until((all) => all.some((f) => f.event === 'session.removed'))
    expect(frames.filter((f) => f.event === 'session.removed')).toEqual([{ event: 'session.removed', data: { id: 'c1' } }])
    list.stop()
    controller.abort()
    await expect(client.removeSession('c1')).rejects.toMatchObject({ status: 404, code: 'session-not-found' })
  })
})

describe('DELETE of a subagent parent and its children', () => {
  it('removes the parent with its running child (stopped first, root first); the child alone is refused 409 child-session, nothing stopped', async () => {
    const store = memoryStore()
    const gate = taskGate(new Set(['child task']))
    const { url } = await start(store, () => [subagents, gate.plugin])
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm', content: 'spawn' })
    const child = await waitFor(async () => (await store.list()).find((s) => s.delegation?.parentSessionId === 'root')?.id, 15_000, 'the child')
    await waitFor(() => findLiveAgent(store, child)?.status === 'running', 15_000, 'the child running')
    // The child alone: refused before anything is stopped.
    const refused = await call(url, 'DELETE', `/v1/sessions/${child}`)
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatchObject({ code: 'child-session', details: { id: child, parentSessionId: 'root' } })
    expect(refused.body.error.message).toContain('remove "root"')
    expect(findLiveAgent(store, child)?.status).toBe('running')
    // A stream on the child (borrowed from its parent) ends with session.removed too.
    const reader = await stream(url, `/v1/sessions/${child}/stream`)
    await reader.until((frames) => frames.some((f) => f.event === 'hello'))
    const removed = await call(url, 'DELETE', '/v1/sessions/root')
    expect(removed).toEqual({ status: 200, body: { removed: ['root', child] } })
    expect(findLiveAgent(store, 'root')).toBeUndefined()
    expect(findLiveAgent(store, child)).toBeUndefined()
    await reader.until(() => removedFrames(reader.frames).length > 0)
    expect(removedFrames(reader.frames)).toEqual([child])
    gate.open()
    expect(await store.list()).toEqual([])
    expect((await call(url, 'GET', `/v1/sessions/${child}`)).status).toBe(404)
  })
})

describe('a removal refused halfway', () => {
  it('a child locked elsewhere after its parent went: 409 session-locked saying what was removed, session.removed for that; the orphan is removed alone after', async () => {
    const inner = memoryStore()
    let locked: string | undefined
    const store: Store = {
      ...inner,
      name: 'locking-memory',
      async remove(id) {
        if (id === locked) throw new BosunError(ErrorCodes.SESSION_LOCKED, `Session "${id}" is open for writing in process 4242.`, { details: { sessionId: id } })
        return inner.remove!(id)
      },
    }
    const { url } = await start(store, () => [subagents])
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm', content: 'spawn' })
    locked = await waitFor(async () => (await store.list()).find((s) => s.delegation?.parentSessionId === 'root')?.id, 15_000, 'the child')
    const feed = await stream(url, '/v1/stream')
    await feed.until((frames) => frames.some((f) => f.event === 'hello'))
    const refused = await call(url, 'DELETE', '/v1/sessions/root')
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('session-locked')
    expect(refused.body.error.message).toContain(`Session "${locked}" (a subagent descendant of "root")`)
    expect(refused.body.error.message).toContain('Removed before it: "root"')
    expect(refused.body.error.message).not.toContain('4242')
    await feed.until((frames) => removedFrames(frames).includes('root'))
    expect((await call(url, 'GET', '/v1/sessions/root')).status).toBe(404)
    const child = locked
    locked = undefined
    expect(await call(url, 'DELETE', `/v1/sessions/${child}`)).toEqual({ status: 200, body: { removed: [child] } })
    expect(await store.list()).toEqual([])
  })
})

describe('a request racing the removal', () => {
  it('a message sent while the store removes the session is answered 404, never reopens it; so is an AI SDK chat', async () => {
    const held = holdableStore()
    const { url } = await start(held.store)
    await call(url, 'POST', '/v1/sessions', { id: 'race' })
    await call(url, 'POST', '/v1/sessions/race/messages', { clientMessageId: 'first', content: 'hi' })
    await waitFor(async () => (await call(url, 'GET', '/v1/sessions/race')).body.status === 'idle')
    held.hold()
    const deleting = call(url, 'DELETE', '/v1/sessions/race')
    // The session is closed and the store is deleting it.
    await waitFor(() => held.waiting, 15_000, 'the removal at the store')
    const waited = removalStats.waited
    const message = call(url, 'POST', '/v1/sessions/race/messages', { clientMessageId: 'late', content: 'too late' })
    const chat = fetch(`${url}/v1/ai-sdk/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'race', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'too late' }] }] }) })
    // Both wait for the removal under way.
    await waitFor(() => removalStats.waited >= waited + 2, 15_000, 'both requests waiting for the removal')
    held.release()
    expect(await deleting).toEqual({ status: 200, body: { removed: ['race'] } })
    const late = await message
    expect(late.status).toBe(404)
    expect(late.body.error.code).toBe('session-not-found')
    expect((await chat).status).toBe(404)
    expect(await held.store.list()).toEqual([])
    expect(findLiveAgent(held.store, 'race')).toBeUndefined()
  })
})

describe('a request for a child racing its parent\'s removal', () => {
  it('waits for the removal and is answered 404: the child is not opened on its own between its parent\'s deletion and its own', async () => {
    const held = holdableStore()
    const gate = taskGate(new Set(['child task']))
    const { url } = await start(held.store, () => [subagents, gate.plugin])
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm', content: 'spawn' })
    const child = await waitFor(async () => (await held.store.list()).find((s) => s.delegation?.parentSessionId === 'root')?.id, 15_000, 'the child')
    await waitFor(() => findLiveAgent(held.store, child)?.status === 'running', 15_000, 'the child running')
    held.hold()
    const deleting = call(url, 'DELETE', '/v1/sessions/root')
    await waitFor(() => held.waiting, 15_000, 'the removal at the store')
    const waited = removalStats.waited
    const message = call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'late', content: 'too late' })
    await waitFor(() => removalStats.waited > waited, 15_000, 'the request waiting for the removal')
    held.release()
    expect(await deleting).toEqual({ status: 200, body: { removed: ['root', child] } })
    expect((await message).status).toBe(404)
    gate.open()
    expect(await held.store.list()).toEqual([])
    expect(findLiveAgent(held.store, child)).toBeUndefined()
  })
})

describe('a store without remove', () => {
  it('501 not-supported, and nothing is stopped: the running turn goes on', async () => {
    const inner = memoryStore()
    const { remove: _, ...store } = inner
    const gate = stepGate()
    const { url } = await start(store as Store, () => [gate.plugin])
    expect((await call(url, 'GET', '/v1/host')).body.capabilities).not.toContain('remove')
    await call(url, 'POST', '/v1/sessions', { id: 'kept' })
    await call(url, 'POST', '/v1/sessions/kept/messages', { clientMessageId: 'go', content: 'go' })
    await waitFor(() => gate.waiting > 0)
    const refused = await call(url, 'DELETE', '/v1/sessions/kept')
    expect(refused.status).toBe(501)
    expect(refused.body.error.code).toBe('not-supported')
    expect(refused.body.error.message).toContain('cannot remove sessions')
    expect((await call(url, 'GET', '/v1/sessions/kept')).body.status).toBe('running')
    gate.open()
    await waitFor(async () => (await call(url, 'GET', '/v1/sessions/kept')).body.status === 'idle')
  })
})
