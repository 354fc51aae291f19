// A subagent's child the host opens while its parent does not hold it — after a host restart, or a
// one-shot child its parent closed after its answer — is built by its parent (issue 18, item 7):
// with its profile's system prompt, model and tools, and the parent learns of every turn a user
// starts there (one settlement message per epoch). Real HTTP on 127.0.0.1, JSONL files and the
// memory store, the scripted model.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgent, createUserMessage, LOG_FORMAT_VERSION, memoryStore, type ModelRequest, type SessionEvent, type Store, type Tool } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { call, childOf, events, firstUserText, idle, lastUserText, ofType, textOf } from './children-helpers.js'
import { tempDir, waitFor } from './helpers.js'


/** The parent's model: each conversation scripted by its first message, the n-th answer by the assistant messages so far. */
const script: Record<string, ScriptedResponse[]> = {
  'plan-bg': [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', agent: 'researcher', mode: 'background' } }] }, { text: 'started' }],
  'plan-fg': [{ toolCalls: [{ name: 'spawn_agent', id: 'fg', args: { task: 'research', agent: 'researcher' } }] }, { text: 'got it' }],
  // Three levels: the root's one-shot child spawns a one-shot researcher of its own.
  'plan-deep': [{ toolCalls: [{ name: 'spawn_agent', id: 'mid', args: { task: 'middle task' } }] }, { text: 'deep done' }],
  'middle task': [{ toolCalls: [{ name: 'spawn_agent', id: 'leaf', args: { task: 'leaf task', agent: 'researcher' } }] }, { text: 'middle done' }],
}
const parentRoute = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'noted' }

/** What the researcher profile's own model was asked: its system prompt, its tools, the message it answered. */
interface Seen { system: string; tools: string[]; last: string }
const tool = (name: string): Tool => ({ name, description: name, parameters: { type: 'object' }, execute: () => name })

let dir: string
let cleanup: () => Promise<void>
let seen: Seen[]
const servers: RunningServer[] = []
const hosts: Host[] = []
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  seen = []
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const host of hosts.splice(0)) await host.close()
  for (const store of storesUsed) await store.close()
  storesUsed.clear()
  await cleanup()
})

/** The stores the hosts ran on (one may serve two hosts in turn), closed after them: a store left open keeps its journal file open. */
const storesUsed = new Set<Store>()

async function start(store: Store): Promise<{ host: Host; url: string }> {
  const researcherModel = scripted({
    responses: Array.from({ length: 20 }, () => (request: ModelRequest): ScriptedResponse => {
      seen.push({ system: request.system, tools: request.tools.map((t) => t.name).sort(), last: lastUserText(request) })
      return { text: `researched: ${lastUserText(request)}` }
    }),
  })
  const profiles = { agents: { researcher: { system: 'You research.', model: { adapter: researcherModel }, tools: ['search'] } } }
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({
      model: scripted({ responses: Array.from({ length: 50 }, () => parentRoute) }),
      system: 'You plan.', tools: [tool('search'), tool('write')], store, sessionId, plugins: [[subagents, profiles]],
    }),
    limits: { keepAliveMs: 200 },
  })
  hosts.push(host)
  storesUsed.add(store)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  servers.push(server)
  return { host, url: server.url }
}

const settled = async (url: string, id: string) => ofType(await events(url, id), 'subagent/settled').map((e) => e.data as { epoch: number; answer: string; messageId?: string })
/** The profile's tools (its allowlist) and the subagent tools a child always gets, sorted. */
const researcherTools = ['interrupt_agent', 'list_agents', 'report', 'search', 'send_to_agent', 'spawn_agent']

const stores: [string, () => Store][] = [['JSONL', () => jsonlStore({ dir })], ['memory', () => memoryStore()]]

/** A first host on `store` runs the root's background spawn until its settlement, then closes: the child's id. */
async function spawnedThenClosed(store: Store): Promise<string> {
  const first = await start(store)
  await call(first.url, 'POST', '/v1/sessions', { id: 'root' })
  await call(first.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-bg' })
  const child = await childOf(first.url, 'root')
  await waitFor(async () => (await settled(first.url, 'root')).length === 1 && (await idle(first.url, 'root')), 15_000, 'the first settlement')
  await servers.pop()!.close()
  await hosts.pop()!.close()
  return child
}

describe.each(stores)('a child opened cold through the host (%s store)', (_, makeStore) => {
  it('after a host restart: its parent builds it with its profile, and learns of the turn a user started there', async () => {
    const store = makeStore()
    const child = await spawnedThenClosed(store)

    // A new host on the same store: neither the parent nor the child is open.
    const { host, url } = await start(store)
    const sent = await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'a question from the user' })
    expect(sent.status).toBe(202)
    // Opened by its parent (which the host opened for it) and borrowed by the host.
    expect((await host.sessions.peek(child))?.borrowed).toBe(true)
    expect(host.sessions.liveIds()).toContain('root')
    await waitFor(async () => (await settled(url, 'root')).length === 2 && (await idle(url, 'root')), 15_000, "the user's turn to settle in the parent")
    // Both of the child's turns ran on the profile: its system prompt, its model, its tool allowlist.
    expect(seen).toEqual([
      { system: 'You research.', tools: researcherTools, last: 'research' },
      { system: 'You research.', tools: researcherTools, last: 'a question from the user' },
    ])
    const root = await events(url, 'root')
    expect((await settled(url, 'root')).map((d) => [d.epoch, d.answer, d.messageId])).toEqual([
      [1, 'researched: research', `settle:${child}:1`],
      [2, 'researched: a question from the user', `settle:${child}:2`],
    ])
    // The settlement of the user's turn reached the parent's model once, as a follow-up.
    const settleMessages = ofType(root, 'user/message').map((e) => (e.data as { id: string }).id).filter((id) => id.startsWith('settle:'))
    expect(settleMessages).toEqual([`settle:${child}:1`, `settle:${child}:2`])
    const settle2 = ofType(root, 'user/message').find((e) => (e.data as { id: string }).id === `settle:${child}:2`)!
    expect(ofType(root, 'assistant/message').some((e) => e.seq > settle2.seq)).toBe(true)
  })

  it('a one-shot child its parent closed after its answer: reopened by the parent for a user, settled in it, closed again', async () => {
    const { host, url } = await start(makeStore())
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-fg' })
    const child = await childOf(url, 'root')
    await waitFor(async () => ofType(await events(url, 'root'), 'turn/end').length === 1, 15_000, "the parent's turn")
    const result = ofType(await events(url, 'root'), 'tool/result').map((e) => e.data as { content: { type: string; text?: string }[] })[0]!
    expect(textOf(result.content)).toBe('researched: research')

    const sent = await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'one more question' })
    expect(sent.status).toBe(202)
    await waitFor(async () => (await settled(url, 'root')).length === 2 && (await idle(url, 'root')), 15_000, "the user's turn to settle in the parent")
    expect(seen.map((s) => [s.system, s.last])).toEqual([['You research.', 'research'], ['You research.', 'one more question']])
    // Epoch 1 was the tool result; epoch 2, the user's turn, came as a message.
    expect((await settled(url, 'root')).map((d) => [d.epoch, d.messageId])).toEqual([[1, undefined], [2, `settle:${child}:2`]])
    // One-shot: the parent closed it again once it settled, and the host let go.
    await waitFor(() => !host.sessions.liveIds().includes(child), 15_000, 'the host to let go of the closed child')
  })

  it('a grandchild after a host restart: opened through its parent, itself opened through the root; each level settles the user\'s turn once', async () => {
    const store = makeStore()
    const first = await start(store)
    await call(first.url, 'POST', '/v1/sessions', { id: 'root' })
    await call(first.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-deep' })
    const middle = await childOf(first.url, 'root')
    const leaf = await childOf(first.url, middle)
    await waitFor(async () => ofType(await events(first.url, 'root'), 'turn/end').length === 1 && (await idle(first.url, 'root')), 15_000, "the root's turn")
    await servers.pop()!.close()
    await hosts.pop()!.close()

    const { host, url } = await start(store)
    expect((await call(url, 'POST', `/v1/sessions/${leaf}/messages`, { clientMessageId: 'user-1', content: 'ask the leaf' })).status).toBe(202)
    // The leaf's settlement wakes the middle child, whose own settlement wakes the root.
    await waitFor(async () => (await settled(url, 'root')).length === 2 && (await idle(url, 'root')), 15_000, 'the settlement to reach the root')
    expect(seen.map((s) => [s.system, s.last])).toEqual([['You research.', 'leaf task'], ['You research.', 'ask the leaf']])
    expect((await settled(url, middle)).map((d) => [d.epoch, d.answer])).toEqual([[1, 'researched: leaf task'], [2, 'researched: ask the leaf']])
    expect((await settled(url, 'root')).map((d) => d.epoch)).toEqual([1, 2])
    expect(host.sessions.liveIds()).toEqual(expect.arrayContaining(['root']))
  })
})

describe('a cold child asked for twice at once', () => {
  it('is opened once, through its parent: both messages are admitted to the one agent and settle in the parent', async () => {
    const store = jsonlStore({ dir })
    const child = await spawnedThenClosed(store)
    const { host, url } = await start(store)
    // The two requests race through the header read, the parent's open and the parent's opener.
    const sent = await Promise.all(['one', 'two'].map((text, i) => call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: `u-${i}`, content: `question ${text}` })))
    expect(sent.map((r) => r.status)).toEqual([202, 202])
    expect((await host.sessions.peek(child))?.borrowed).toBe(true)
    await waitFor(async () => (await idle(url, child)) && (await idle(url, 'root')) && seen.length === 3, 15_000, 'both questions to be answered')
    expect(seen.map((s) => [s.system, s.last]).slice(1).sort()).toEqual([['You research.', 'question one'], ['You research.', 'question two']])
    // One writer on the child's log: its turns are numbered 1, 2, 3.
    expect(ofType(await events(url, child), 'turn/start').map((e) => (e.data as { turn: number }).turn)).toEqual([1, 2, 3])
  })
})

describe('a child reached through the host before its session is made', () => {
  it("waits for the parent's spawn instead of answering 404, and queues the user's message after the task", async () => {
    const base = memoryStore()
    let release!: () => void
    const made = new Promise<void>((resolve) => (release = resolve))
    let creating = false
    // The child's session is made only when the test says: the spawn is logged, the child not yet stored.
    const store: Store = {
      ...base,
      create: async (header, seed) => {
        if (header.delegation) {
          creating = true
          await made
        }
        return base.create(header, seed)
      },
    }
    const { host, url } = await start(store)
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-bg' })
    const child = await childOf(url, 'root')
    await waitFor(() => creating, 15_000, "the child's session to be on its way")
    expect(await base.has!(child)).toBe(false)
    const sending = call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'early question' })
    // Without the wait for the spawn, the request would be answered 404 before the session is made.
    release()
    expect((await sending).status).toBe(202)
    expect((await host.sessions.peek(child))?.borrowed).toBe(true)
    await waitFor(async () => (await settled(url, 'root')).length >= 1 && (await idle(url, 'root')) && (await idle(url, child)), 15_000, 'the child to settle')
    const firstMessages = ofType(await events(url, child), 'user/message').map((e) => textOf((e.data as { content: { type: string; text?: string }[] }).content))
    expect(firstMessages).toEqual(['research', 'early question'])
  })

  it('does not loop on headers whose parents name each other: the host builds such a session itself', async () => {
    const store = memoryStore()
    const delegation = (parentSessionId: string) => ({ parentSessionId, callId: 'c', depth: 1, mode: 'continuable' as const })
    await (await store.create({ id: 'a', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: delegation('b') })).writer.close()
    await (await store.create({ id: 'b', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: delegation('a') })).writer.close()
    const { host, url } = await start(store)
    expect((await call(url, 'POST', '/v1/sessions/a/messages', { clientMessageId: 'u', content: 'hello' })).status).toBe(202)
    expect((await host.sessions.peek('a'))?.borrowed).toBeUndefined()
    await waitFor(async () => idle(url, 'a'), 15_000, 'the turn')
  })

  it('nor deadlocks when both such sessions are asked for at once: each open would wait for the other', async () => {
    const store = memoryStore()
    const delegation = (parentSessionId: string) => ({ parentSessionId, callId: 'c', depth: 1, mode: 'continuable' as const })
    await (await store.create({ id: 'a', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: delegation('b') })).writer.close()
    await (await store.create({ id: 'b', version: LOG_FORMAT_VERSION, createdAt: 1, delegation: delegation('a') })).writer.close()
    const { host } = await start(store)
    let settled = 0
    const both = Promise.all(['a', 'b'].map((id) => host.sessions.use(id).finally(() => settled++)))
    await waitFor(() => settled === 2, 15_000, 'both opens to settle')
    expect((await both).map((live) => live.id)).toEqual(['a', 'b'])
  })
})

describe('a child whose parent another process holds', () => {
  // Two JSONL store objects on one directory are two processes to the store's locks (a cluster's
  // hosts are, to its leases): the parent's holder owns its children.
  it('is not built by this host without its profile: 409 session-locked, the child untouched (a cluster relays it to the parent\'s owner)', async () => {
    const owner = await start(jsonlStore({ dir }))
    await call(owner.url, 'POST', '/v1/sessions', { id: 'root' })
    await call(owner.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-fg' })
    const child = await childOf(owner.url, 'root')
    // The one-shot child answered and was closed: only its parent is held, by the owner.
    await waitFor(async () => ofType(await events(owner.url, 'root'), 'turn/end').length === 1 && !owner.host.sessions.liveIds().includes(child), 15_000, "the parent's turn")
    const before = (await events(owner.url, child)).length

    const other = await start(jsonlStore({ dir }))
    const sent = await call(other.url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'asked elsewhere' })
    expect(sent.status).toBe(409)
    expect(sent.body.error).toMatchObject({ code: 'session-locked', details: { id: child, parentSessionId: 'root' } })
    expect(other.host.sessions.liveIds()).toEqual([])
    expect(await events(owner.url, child)).toHaveLength(before)
    // Its parent's holder opens it, with the profile.
    expect((await call(owner.url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'asked the owner' })).status).toBe(202)
    await waitFor(async () => (await settled(owner.url, 'root')).length === 2, 15_000, "the user's turn to settle in the parent")
    expect(seen.map((s) => [s.system, s.last])).toEqual([['You research.', 'research'], ['You research.', 'asked the owner']])
  })
})

describe('a child a crash left mid-turn, opened through its parent', () => {
  it("is woken as the host wakes any session a crash left working: the user's accepted message is answered and settles in the parent", async () => {
    const store = memoryStore()
    const child = await spawnedThenClosed(store)
    // What a host killed during a user's turn in the child leaves: the message admitted and claimed, the turn open.
    const opened = (await store.open(child))!
    const message = createUserMessage('asked before the crash', { id: 'user-1', source: { kind: 'user', delivery: 'followup' } })
    const crashed: [string, unknown][] = [
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, inserted: [message] }],
      ['turn/start', { turn: 2 }],
      ['agent/inbox/spliced', { target: 'next-turn', start: 0, removedCount: 1, inserted: [] }],
    ]
    crashed.forEach(([type, data], i) => opened.writer.append(Object.freeze({ seq: opened.events.length + i, time: 2, type, data }) as SessionEvent))
    await opened.writer.close()

    // Resumed by the next host (a restart's first request, a cluster's takeover): through its parent.
    const { host, url } = await start(store)
    expect((await host.sessions.use(child)).borrowed).toBe(true)
    await waitFor(async () => (await settled(url, 'root')).some((s) => s.answer === 'researched: asked before the crash') && (await idle(url, 'root')), 15_000, "the child's answer to settle in the parent")
    expect(seen.map((s) => s.last)).toEqual(['research', 'asked before the crash'])
  })
})
