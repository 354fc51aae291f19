// On a cluster, a host's stream (GET /v1/stream) announces the sessions other hosts make —
// created, forked, a subagent's child — with `session.added` (then their `session.status`), as
// for one made there, exactly once: the host that made one announces it itself and skips the
// store's NOTIFY of its own create. A NOTIFY lost while the LISTEN connection was down is made up
// for by a new `hello` (the whole list) once it is back. Real PostgreSQL, two hosts served on
// 127.0.0.1, the scripted model.
import { describe, expect, it } from 'vitest'
import { createAgent, type ModelRequest, type Store } from '@bosun/core'
import { scripted, type ScriptedResponse } from '@bosun/adapter-scripted'
import subagents from '@bosun/plugin-subagents'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { listen, type RunningServer } from '../src/index.js'
import { SseReader, waitFor } from './helpers.js'
import { available, turnsEnded, useCluster, type ClusterHost } from './cluster-helpers.js'
import { firstUserText } from './children-helpers.js'

type Frame = { event: string; data?: any }

const addedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.added').map((f) => f.data.id as string)

describe.skipIf(!available)('host cluster on PostgreSQL — the host stream announces sessions made on other hosts', () => {
  const cluster = useCluster()
  const servers: RunningServer[] = []

  const serve = async (h: ClusterHost) => {
    const server = await listen(h.host, { hostname: '127.0.0.1', port: 0, hasToken: false })
    servers.push(server)
    return server.url
  }
  const post = async (url: string, path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(response.status, `POST ${path}`).toBeLessThan(300)
    return response.json() as Promise<any>
  }
  const hostStream = async (url: string) => {
    const feed = new SseReader(await fetch(`${url}/v1/stream`))
    await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    return feed
  }
  const closeServers = async () => {
    for (const server of servers.splice(0)) await server.close()
  }

  it('B sends session.added once for a session, a fork and a subagent child made through A; A once too', { timeout: 60_000 }, async () => {
    const script: Record<string, ScriptedResponse[]> = { delegate: [{ toolCalls: [{ name: 'spawn_agent', id: 'bg', args: { task: 'research', mode: 'background' } }] }, { text: 'started' }] }
    const route = (request: ModelRequest): ScriptedResponse => script[firstUserText(request)]?.[request.messages.filter((m) => m.role === 'assistant').length] ?? { text: 'done' }
    const agentFactory = ({ sessionId, store }: { sessionId: string; store: Store }) => createAgent({ model: scripted({ responses: Array.from({ length: 10 }, () => route) }), store, sessionId, plugins: [subagents] })
    const [a, b] = cluster.hosts(2, { host: { agentFactory } })
    try {
      const [onA, onB] = [await serve(a!), await serve(b!)]
      const [feedA, feedB] = [await hostStream(onA), await hostStream(onB)]

      await post(onA, '/v1/sessions', { id: 'lead' })
      await feedB.until((frames) => addedIds(frames).includes('lead'), 30_000)
      await post(onA, '/v1/sessions/lead/messages', { clientMessageId: 'm-1', content: 'delegate' })
      // (The child's settlement may start a second turn at once.)
      await waitFor(async () => turnsEnded((await b!.store.read('lead'))!.events) >= 1, 30_000, "the lead's turn to end on A")
      const child = ((await b!.store.list()).find((s) => s.delegation?.parentSessionId === 'lead'))!.id
      await post(onA, '/v1/sessions/lead/fork', { id: 'lead-fork' })
      await post(onA, '/v1/sessions', { id: 'marker' })

      // NOTIFYs arrive in commit order: once the marker is announced, every earlier creation was.
      await feedB.until((frames) => addedIds(frames).includes('marker'), 30_000)
      await feedA.until((frames) => addedIds(frames).includes('marker'), 30_000)
      expect(addedIds(feedB.frames)).toEqual(['lead', child, 'lead-fork', 'marker'])
      // A announced what it made itself, and not again from the NOTIFY (the child: once its parent made it).
      expect(addedIds(feedA.frames).sort()).toEqual(['lead', child, 'lead-fork', 'marker'].sort())

      // The same rows as for a local creation: session.added {id}, then the session's summary.
      for (const id of ['lead', child, 'lead-fork', 'marker']) {
        const added = feedB.frames.findIndex((f) => f.event === 'session.added' && f.data.id === id)
        const status = feedB.frames.findIndex((f) => f.event === 'session.status' && f.data.id === id)
        expect(feedB.frames[added]!.data).toEqual({ id })
        expect(status, `the session.status of ${id} after its session.added`).toBeGreaterThan(added)
      }
      const childRow = feedB.frames.find((f) => f.event === 'session.status' && f.data.id === child)!.data
      expect(childRow).toMatchObject({ id: child, parentSessionId: 'lead', loaded: false })
      expect(feedB.frames.find((f) => f.event === 'session.status' && f.data.id === 'lead-fork')!.data).toMatchObject({ parent: 'lead', loaded: false })
      // B opened none of them to learn of them.
      for (const id of ['lead', child, 'lead-fork', 'marker']) expect(await b!.host.sessions.peek(id)).toBeUndefined()
      await Promise.all([feedA.cancel(), feedB.cancel()])
    } finally {
      await closeServers()
    }
  })

  it("a creation whose NOTIFY B's LISTEN connection missed reaches B's stream in a new hello once it listens again", { timeout: 60_000 }, async () => {
    const hosts = cluster.hosts(2)
    const [a, b] = hosts
    try {
      const [onA, onB] = [await serve(a!), await serve(b!)]
      const feed = await hostStream(onB)
      const watcher = b!.host.cluster!.watcher as unknown as Watcher
      await watcher.whenListening()
      await post(onA, '/v1/sessions', { id: 'template' })
      await feed.until((frames) => addedIds(frames).includes('template'), 30_000)

      // A session row committed with no NOTIFY: as if it was sent while B's LISTEN connection was down.
      await cluster.sql(`INSERT INTO "${hosts.schema}".sessions (id, header, created_at, parent, length, summary)
        SELECT 'missed', replace(header, '"id":"template"', '"id":"missed"'), created_at, parent, length, summary FROM "${hosts.schema}".sessions WHERE id = 'template'`)
      await cluster.sql('SELECT pg_terminate_backend($1)', [watcher.backendPid])

      const hellos = (frames: Frame[]) => frames.filter((f) => f.event === 'hello').map((f) => (f.data.sessions as { id: string }[]).map((s) => s.id).sort())
      await feed.until((frames) => hellos(frames).some((ids) => ids.includes('missed')), 30_000)
      expect(watcher.stats.reconnects).toBeGreaterThanOrEqual(1)
      expect(hellos(feed.frames).at(-1)).toEqual(['missed', 'template'])
      // Still listening: a creation after the reconnection is announced as usual.
      await post(onA, '/v1/sessions', { id: 'later' })
      await feed.until((frames) => addedIds(frames).includes('later'), 30_000)
      expect(addedIds(feed.frames)).toEqual(['template', 'later'])
      await feed.cancel()
    } finally {
      await closeServers()
    }
  })
})
