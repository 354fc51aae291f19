// A child its subagent parent runs in this process, reached through the host (issue 18, item 7):
// the host borrows the parent's live child agent instead of opening the child's session a second
// time, so a user can send to it, cancel it and watch it live; a child the host opens cold is
// opened through its parent (children-cold.test.ts has the profile cases). Real HTTP on 127.0.0.1, JSONL files and the memory store, the scripted model.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAgent, findLiveAgent, memoryStore, type ModelRequest, type SessionEvent, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { call, childOf, events, firstUserText, ofType, taskGate, textOf } from './children-helpers.js'
import { SseReader, tempDir, waitFor, type Frame } from './helpers.js'


/** The id of the child a background spawn started, from its tool result in the conversation. */
const startedChild = (request: ModelRequest): string => /Started background agent ([\w-]+)\./.exec(JSON.stringify(request.messages))![1]!

type Answer = ScriptedResponse | ((request: ModelRequest) => ScriptedResponse)
/** Each conversation is scripted by its first message (a user's prompt, a child's task); the n-th answer by the assistant messages so far. */
const script: Record<string, Answer[]> = {
  'plan-bg': [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }],
  research: [{ text: 'first finding' }, { text: 'second finding' }],
  'plan-fg': [{ toolCalls: [{ name: 'spawn_agent', id: 'fg', args: { task: 'long job' } }] }, { text: 'the child was stopped' }],
  // Turn 1 spawns, turn 2 takes the first settlement, turn 3 (the settlement of a user's turn there) sends to the child.
  'plan-quick': [
    { toolCalls: [{ name: 'spawn_agent', id: 'q', args: { task: 'quick', mode: 'background' } }] }, { text: 'spawned' }, { text: 'noted' },
    (request) => ({ toolCalls: [{ name: 'send_to_agent', id: 's', args: { childId: startedChild(request), message: 'from the parent' } }] }), { text: 'sent' },
  ],
  quick: [{ text: 'quick answer' }, { text: 'answer to the user' }, { text: 'answer to the parent' }],
}
const route = (request: ModelRequest): ScriptedResponse => {
  const answer = script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }
  return typeof answer === 'function' ? answer(request) : answer
}

let dir: string
let cleanup: () => Promise<void>
const servers: RunningServer[] = []
const hosts: Host[] = []
/** The stores the hosts ran on (one may serve two hosts in turn), closed after them: a store left open keeps its journal file open. */
const storesUsed = new Set<Store>()
let errors: ReturnType<typeof vi.spyOn>
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  errors = vi.spyOn(console, 'error')
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const host of hosts.splice(0)) await host.close()
  for (const store of storesUsed) await store.close()
  storesUsed.clear()
  // No part of the process hit a second writer on a child's log.
  expect(JSON.stringify(errors.mock.calls, (_, v) => (v instanceof Error ? `${(v as { code?: string }).code} ${v.message}` : v))).not.toMatch(/STALE_WRITER|SESSION_LOCKED/)
  errors.mockRestore()
  await cleanup()
})

async function start(store: Store, gate = taskGate(new Set()), idleMs?: number): Promise<{ host: Host; url: string }> {
  const host = createHost({
    store,
    agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: Array.from({ length: 50 }, () => route) }), store, sessionId, plugins: [subagents, gate.plugin] }),
    limits: { keepAliveMs: 200, ...(idleMs === undefined ? {} : { idleMs }) },
  })
  hosts.push(host)
  storesUsed.add(store)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  servers.push(server)
  return { host, url: server.url }
}

const turnEnds = (frames: Frame[]) => frames.filter((f) => f.event === 'session.event' && f.data.type === 'turn/end').map((f) => f.data.data.reason.kind as string)

const stores: [string, () => Store][] = [['JSONL', () => jsonlStore({ dir })], ['memory', () => memoryStore()]]

describe.each(stores)('a child its parent runs, through the host (%s store)', (_, makeStore) => {
  it('takes a follow-up from a user while it runs, streams it live, answers it, and settles in the parent exactly once', async () => {
    const gate = taskGate(new Set(['research']))
    const { host, url } = await start(makeStore(), gate)
    expect((await call(url, 'POST', '/v1/sessions', { id: 'root' })).status).toBe(201)
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-bg' })
    const child = await childOf(url, 'root')
    await waitFor(async () => (await call(url, 'GET', `/v1/sessions/${child}`)).body.status === 'running', 15_000, 'the child to run')
    // The child's stream, while its first turn is held mid-step: live, from the parent's agent.
    const response = await fetch(`${url}/v1/sessions/${child}/stream`)
    expect(response.status).toBe(200)
    const stream = new SseReader(response)
    await stream.until((frames) => frames.some((f) => f.event === 'hello'))
    expect(stream.frames.find((f) => f.event === 'hello')!.data.status).toBe('running')
    const sent = await call(url, 'POST', `/v1/sessions/${child}/messages?wait=durable`, { clientMessageId: 'user-1', content: 'and one more thing' })
    expect(sent.status).toBe(202)
    expect(sent.body).toMatchObject({ accepted: true, messageId: 'user-1', lane: 'next-turn', durable: true, status: 'running' })
    const live = await host.sessions.peek(child)
    expect(live?.borrowed).toBe(true)
    gate.open()
    const frames = await stream.until((f) => turnEnds(f).length === 2)
    expect(turnEnds(frames)).toEqual(['completed', 'completed'])
    expect(frames.some((f) => f.event === 'session.event' && f.data.type === 'user/message' && f.data.data.id === 'user-1')).toBe(true)
    await stream.cancel()
    // One settlement (the child went idle once, after answering the user), with the answer to the user.
    await waitFor(async () => ofType(await events(url, 'root'), 'subagent/settled').length === 1 && (await call(url, 'GET', '/v1/sessions/root')).body.status === 'idle', 15_000, 'the settlement')
    const root = await events(url, 'root')
    expect(ofType(root, 'subagent/settled').map((e) => e.data)).toMatchObject([{ childId: child, epoch: 1, messageId: `settle:${child}:1`, reason: 'completed', answer: 'second finding' }])
    expect(ofType(root, 'user/message').filter((e) => (e.data as { id: string }).id.startsWith('settle:'))).toHaveLength(1)
    const childLog = await events(url, child)
    expect(ofType(childLog, 'assistant/message').map((e) => textOf((e.data as { message: { content: { type: string; text?: string }[] } }).message.content))).toEqual(['first finding', 'second finding'])
  })

  it("cancels a running foreground child: its turn ends aborted, the parent's tool result says aborted, and the host lets go when the parent closes it", async () => {
    const { host, url } = await start(makeStore(), taskGate(new Set(['long job'])))
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-fg' })
    const child = await childOf(url, 'root')
    await waitFor(async () => (await call(url, 'GET', `/v1/sessions/${child}`)).body.status === 'running', 15_000, 'the child to run')
    const stream = new SseReader(await fetch(`${url}/v1/sessions/${child}/stream`))
    await stream.until((frames) => frames.some((f) => f.event === 'hello' && f.data.status === 'running'))
    const canceled = await call(url, 'POST', `/v1/sessions/${child}/cancel`, {})
    expect(canceled).toMatchObject({ status: 200, body: { canceled: true } })
    await waitFor(async () => ofType(await events(url, 'root'), 'turn/end').length === 1, 15_000, "the parent's turn to end")
    const root = await events(url, 'root')
    const result = ofType(root, 'tool/result').map((e) => e.data as { callId: string; isError?: boolean; content: { type: string; text?: string }[] }).find((r) => r.callId === 'fg')!
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toContain(`Agent ${child} was aborted`)
    expect(ofType(root, 'subagent/settled').map((e) => e.data)).toMatchObject([{ childId: child, epoch: 1, reason: 'aborted' }])
    expect((ofType(root, 'turn/end')[0]!.data as { reason: { kind: string } }).reason.kind).toBe('completed')
    // The parent closed its one-shot child: the host forgot it and its stream ended.
    await waitFor(() => !host.sessions.liveIds().includes(child), 15_000, 'the host to let go of the closed child')
    await stream.until(() => stream.done)
    expect(ofType(await events(url, child), 'turn/end').map((e) => (e.data as { reason: { kind: string } }).reason.kind)).toEqual(['aborted'])
  })

  it("a child the host opens cold (a user wrote to it after a restart) is its parent's: the parent learns of the user's turn and sends to the same agent", async () => {
    const store = makeStore()
    const first = await start(store)
    await call(first.url, 'POST', '/v1/sessions', { id: 'root' })
    await call(first.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-quick' })
    const child = await childOf(first.url, 'root')
    // The settlement reaches the parent as a steer or a follow-up, as it happens: either way one more answer.
    await waitFor(async () => ofType(await events(first.url, 'root'), 'subagent/settled').length === 1 && (await call(first.url, 'GET', '/v1/sessions/root')).body.status === 'idle', 15_000, 'the settlement')
    // A new host on the same store: neither is open; the host opens the parent, which opens the child.
    await servers.pop()!.close()
    await hosts.pop()!.close()
    const { host, url } = await start(store)
    const userTurn = await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'a question from the user' })
    expect(userTurn.status).toBe(202)
    expect((await host.sessions.peek(child))?.borrowed).toBe(true)
    // The user's turn settles in the parent (epoch 2), whose answer to it sends to the child (epoch 3).
    await waitFor(async () => ofType(await events(url, 'root'), 'subagent/settled').length === 3, 15_000, 'the settlements')
    const root = await events(url, 'root')
    expect(ofType(root, 'subagent/settled').map((e) => (e.data as { epoch: number; answer: string })).map((d) => [d.epoch, d.answer])).toEqual([[1, 'quick answer'], [2, 'answer to the user'], [3, 'answer to the parent']])
    const sendResult = ofType(root, 'tool/result').map((e) => e.data as { callId: string; isError?: boolean; content: { type: string; text?: string }[] }).find((r) => r.callId === 's')!
    expect(sendResult.isError).toBeFalsy()
    expect(ofType(await events(url, child), 'turn/end')).toHaveLength(3)
    // One agent on the child all along: the host still borrows the parent's.
    expect(host.sessions.liveIds()).toContain(child)
    expect((await host.sessions.peek(child))?.closed).toBeUndefined()
  })

  it('keeps an idle parent open while its child works (closing the parent would close the child), and retires it once all are idle', async () => {
    const store = makeStore()
    const gate = taskGate(new Set(['research']))
    const { host, url } = await start(store, gate, 100)
    await call(url, 'POST', '/v1/sessions', { id: 'root' })
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-bg' })
    const child = await childOf(url, 'root')
    await waitFor(() => findLiveAgent(store, child)?.status === 'running', 15_000, 'the child to run')
    await waitFor(async () => (await call(url, 'GET', '/v1/sessions/root')).body.status === 'idle', 15_000, 'the parent to be idle')
    // A session made after the parent's last use, retired for idleness: the parent's (earlier, as
    // long) idle period has passed too — and the parent, whose child still works, stayed open.
    await call(url, 'POST', '/v1/sessions', { id: 'other' })
    await waitFor(() => !host.sessions.liveIds().includes('other'), 15_000, 'the idle session to be retired')
    expect(host.sessions.liveIds()).toContain('root')
    expect(findLiveAgent(store, child)?.status).toBe('running')
    gate.open()
    await waitFor(async () => ofType(await events(url, 'root'), 'subagent/settled').length === 1, 15_000, 'the settlement')
    expect(ofType(await events(url, 'root'), 'subagent/settled')[0]!.data).toMatchObject({ childId: child, reason: 'completed', answer: 'first finding' })
    await waitFor(() => !host.sessions.liveIds().includes('root'), 15_000, 'the parent to be retired once everything is idle')
    expect(findLiveAgent(store, child)).toBeUndefined()
  })
})
