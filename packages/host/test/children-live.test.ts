// A child its subagent parent runs in this process, reached through the host (issue 18, item 7):
// the host borrows the parent's live child agent instead of opening the child's session a second
// time, so a user can send to it, cancel it and watch it live; and a parent borrows a child the
// host opened. Real HTTP on 127.0.0.1, JSONL files and the memory store, the scripted model.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAgent, definePlugin, findLiveAgent, memoryStore, type ModelRequest, type SessionEvent, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import subagents from '@bosun/plugin-subagents'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { SseReader, tempDir, waitFor, type Frame } from './helpers.js'

const textOf = (content: readonly { type: string; text?: string }[]) => content.map((b) => b.text ?? '').join('')
const firstUserText = (request: ModelRequest): string => {
  const first = request.messages.find((m) => m.role === 'user')
  return first && first.role === 'user' ? textOf(first.content as { type: string; text?: string }[]) : ''
}

/** The id of the child a background spawn started, from its tool result in the conversation. */
const startedChild = (request: ModelRequest): string => /Started background agent ([\w-]+)\./.exec(JSON.stringify(request.messages))![1]!

type Answer = ScriptedResponse | ((request: ModelRequest) => ScriptedResponse)
/** Each conversation is scripted by its first message (a user's prompt, a child's task); the n-th answer by the assistant messages so far. */
const script: Record<string, Answer[]> = {
  'plan-bg': [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }],
  research: [{ text: 'first finding' }, { text: 'second finding' }],
  'plan-fg': [{ toolCalls: [{ name: 'spawn_agent', id: 'fg', args: { task: 'long job' } }] }, { text: 'the child was stopped' }],
  // Turn 1 spawns, turn 2 takes the settlement, turn 3 ("ask it again") sends to the child.
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

/** Holds every step of a session whose task (its first queued message) is one of `held` until the test opens the gate. */
function taskGate(held: ReadonlySet<string>) {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const plugin = definePlugin({
    name: 'task-gate',
    setup({ hooks, session }) {
      hooks.preStep.tapPromise('task-gate', async (decision) => {
        const first = session.events.find((e) => e.type === 'agent/inbox/spliced')?.data as { inserted: { content: { type: string; text?: string }[] }[] } | undefined
        if (first && held.has(textOf(first.inserted[0]?.content ?? []))) await opened
        return decision
      })
    },
  })
  return { plugin, open }
}

let dir: string
let cleanup: () => Promise<void>
const servers: RunningServer[] = []
const hosts: Host[] = []
let errors: ReturnType<typeof vi.spyOn>
beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  errors = vi.spyOn(console, 'error')
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  for (const host of hosts.splice(0)) await host.close()
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
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  servers.push(server)
  return { host, url: server.url }
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })
  return { status: response.status, body: await response.json() }
}
const events = async (url: string, id: string): Promise<SessionEvent[]> => (await call(url, 'GET', `/v1/sessions/${id}/events?limit=1000`)).body.events
const ofType = (list: readonly SessionEvent[], type: string) => list.filter((e) => e.type === type)
const childOf = async (url: string, id: string) => waitFor(async () => (ofType(await events(url, id), 'subagent/spawned')[0]?.data as { childId: string } | undefined)?.childId, 15_000, 'the spawn')
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

  it("a child the host opened cold (a user wrote to it) is borrowed by its parent's send_to_agent, not opened twice", async () => {
    const store = makeStore()
    const first = await start(store)
    await call(first.url, 'POST', '/v1/sessions', { id: 'root' })
    await call(first.url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm1', content: 'plan-quick' })
    const child = await childOf(first.url, 'root')
    // The settlement reaches the parent as a steer or a follow-up, as it happens: either way one more answer.
    await waitFor(async () => ofType(await events(first.url, 'root'), 'subagent/settled').length === 1 && (await call(first.url, 'GET', '/v1/sessions/root')).body.status === 'idle', 15_000, 'the settlement')
    // A new host on the same store: the parent is not open, so the child opens cold, owned by the host.
    await servers.pop()!.close()
    await hosts.pop()!.close()
    const { host, url } = await start(store)
    const userTurn = await call(url, 'POST', `/v1/sessions/${child}/messages`, { clientMessageId: 'user-1', content: 'a question from the user' })
    expect(userTurn.status).toBe(202)
    expect((await host.sessions.peek(child))?.borrowed).toBeUndefined()
    await waitFor(async () => ofType(await events(url, child), 'turn/end').length === 2, 15_000, "the child's answer to the user")
    // The parent, reopened by the host, sends to the child: its delegator borrows the host's agent.
    await call(url, 'POST', '/v1/sessions/root/messages', { clientMessageId: 'm2', content: 'ask it again' })
    await waitFor(async () => ofType(await events(url, child), 'turn/end').length === 3, 15_000, "the child's answer to the parent")
    await waitFor(async () => ofType(await events(url, 'root'), 'subagent/settled').length === 3, 15_000, 'the settlements')
    const root = await events(url, 'root')
    // Epoch 2 is the turn the user started, epoch 3 the parent's send: each settled once.
    expect(ofType(root, 'subagent/settled').map((e) => (e.data as { epoch: number; answer: string })).map((d) => [d.epoch, d.answer])).toEqual([[1, 'quick answer'], [2, 'answer to the user'], [3, 'answer to the parent']])
    const sendResult = ofType(root, 'tool/result').map((e) => e.data as { callId: string; isError?: boolean; content: { type: string; text?: string }[] }).find((r) => r.callId === 's')!
    expect(sendResult.isError).toBeFalsy()
    // The host still owns the child: the parent let it go instead of closing it.
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
