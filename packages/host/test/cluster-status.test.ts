import { describe, expect, it } from 'vitest'
import { createAgent, type ModelRequest, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import { listen } from '../src/index.js'
import { json, req, SseReader, stepGate, waitFor } from './helpers.js'
import { available, turnsEnded, useCluster } from './cluster-helpers.js'
import { firstUserText, taskGate } from './children-helpers.js'

describe.skipIf(!available)('host cluster on PostgreSQL — live status of sessions other hosts run', () => {
  const cluster = useCluster()

  it('host B lists a session host A runs as running, and its host stream says when it starts and ends', async () => {
    const gate = stepGate()
    const [a, b] = cluster.hosts(2, { plugins: () => [gate.plugin] })
    const feed = new SseReader(await req(b!.host, 'GET', '/v1/stream'))
    await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    await (b!.host.cluster!.watcher as unknown as { whenListening(): Promise<void> }).whenListening()
    await req(a!.host, 'POST', '/v1/sessions', { id: 'busy' })
    await req(a!.host, 'POST', '/v1/sessions', { id: 'quiet' })
    // B announces both (session.added, then each one's idle row); the frames after are the turn's.
    await feed.until((frames) => ['busy', 'quiet'].every((id) => frames.some((f) => f.event === 'session.status' && f.data?.id === id)), 30_000)
    const announced = feed.frames.length

    await req(a!.host, 'POST', '/v1/sessions/busy/messages', { clientMessageId: 'm-1', content: 'held' })
    await waitFor(() => gate.waiting === 1, 30_000, 'the turn to be held on A')
    const statusOn = async (host: typeof b) => Object.fromEntries((await json<{ sessions: { id: string; status: string; loaded: boolean }[] }>(req(host!.host, 'GET', '/v1/sessions'))).sessions.map((s) => [s.id, `${s.status}${s.loaded ? ' (loaded)' : ''}`]))
    await waitFor(async () => (await statusOn(b)).busy === 'running', 30_000, 'B to list "busy" as running')
    expect(await statusOn(b)).toEqual({ busy: 'running', quiet: 'idle' })
    expect(await statusOn(a)).toMatchObject({ busy: 'running (loaded)' })
    // B did not take the session to learn it: A still owns it.
    expect(await b!.store.leaseHolder('busy')).toMatchObject({ owner: 'host-a' })
    expect(await b!.host.sessions.peek('busy')).toBeUndefined()

    const statusFrames = (frames: { event: string; data?: { id: string; status: string } }[]) => frames.slice(announced).filter((f) => f.event === 'session.status' && f.data?.id === 'busy').map((f) => f.data!.status)
    await feed.until((frames) => statusFrames(frames).includes('running'), 30_000)
    gate.open()
    await waitFor(async () => turnsEnded((await b!.store.read('busy'))!.events) === 1, 30_000, 'the turn to end on A')
    await feed.until((frames) => statusFrames(frames).at(-1) === 'idle', 30_000)
    expect(statusFrames(feed.frames)).toEqual(['running', 'idle'])
    expect(await statusOn(b)).toEqual({ busy: 'idle', quiet: 'idle' })
    await feed.cancel()
  })

  it("host B's snapshot of a session host A runs, and B's list of its parent's children, say running (they said idle)", async () => {
    const gate = taskGate(new Set(['research']))
    const script: Record<string, ScriptedResponse[]> = { delegate: [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }] }
    const route = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }
    const agentFactory = ({ sessionId, store }: { sessionId: string; store: Store }) => createAgent({ model: scripted({ responses: Array.from({ length: 10 }, () => route) }), store, sessionId, plugins: [subagents, gate.plugin] })
    const [a, b] = cluster.hosts(2, { host: { agentFactory } })
    const server = await listen(b!.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    try {
      const onB = async (path: string) => {
        const response = await fetch(`${server.url}${path}`)
        expect(response.status).toBe(200)
        return response.json() as Promise<any>
      }
      await req(a!.host, 'POST', '/v1/sessions', { id: 'lead' })
      await req(a!.host, 'POST', '/v1/sessions/lead/messages', { clientMessageId: 'm-1', content: 'delegate' })
      // The child is held at its first step on A, mid-turn; B has not loaded it.
      await waitFor(async () => (await onB('/v1/sessions')).sessions.find((s: { parentSessionId?: string; status: string }) => s.parentSessionId === 'lead' && s.status === 'running'), 30_000, 'B to list the child as running')
      const [child] = (await onB('/v1/sessions/lead/children')).children
      expect(child).toMatchObject({ parentSessionId: 'lead', loaded: false, status: 'running' })
      expect(await onB(`/v1/sessions/${child.id}`)).toMatchObject({ id: child.id, loaded: false, status: 'running' })
      expect(await b!.host.sessions.peek(child.id)).toBeUndefined()
      gate.open()
      await waitFor(async () => (await onB(`/v1/sessions/${child.id}`)).status === 'idle', 30_000, "B's snapshot of the child to say idle")
      expect((await onB('/v1/sessions/lead/children')).children[0]).toMatchObject({ id: child.id, status: 'idle' })
    } finally {
      await server.close()
    }
  })

  it('a status change whose NOTIFY was lost is caught up by the poll', async () => {
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    const feed = new SseReader(await req(b!.host, 'GET', '/v1/stream'))
    await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    await (b!.host.cluster!.watcher as unknown as { whenListening(): Promise<void> }).whenListening()
    const frameOf = (status: string) => (frames: { event: string; data?: { id: string; status: string } }[]) => frames.some((f) => f.event === 'session.status' && f.data?.id === 'lost' && f.data.status === status)
    // Announced on B (session.added, then its row) before its status moves: a row read after the
    // move would say running before the poll learned it, and the move back would look like no change.
    await req(a!.host, 'POST', '/v1/sessions', { id: 'lost' })
    await feed.until(frameOf('idle'), 30_000)
    // The row changes as a commit changes it, and no NOTIFY is sent: as if it was lost on the way.
    await cluster.sql(`UPDATE "${hosts.schema}".sessions SET status = 'running' WHERE id = 'lost'`)
    await feed.until(frameOf('running'), 30_000)
    await cluster.sql(`UPDATE "${hosts.schema}".sessions SET status = 'idle' WHERE id = 'lost'`)
    await feed.until(frameOf('idle'), 30_000)
    await feed.cancel()
  })
})
