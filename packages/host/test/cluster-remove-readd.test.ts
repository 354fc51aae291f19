// A session removed and made again under the same id on a cluster: a host whose LISTEN connection
// brings the removal's NOTIFY only after it made the id again itself must not tell that removal —
// its host stream said `session.removed` for a session that exists (lists dropped it), and its
// cluster forgot what it kept for it. A host that hears the removal and then the creation tells
// both, in that order, and lists the session. Real PostgreSQL, two hosts served on 127.0.0.1; a
// slow LISTEN connection is stood in for by holding what one watcher hears of creates and
// removals, in the order heard, until the test lets it through.
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '@bosun/core'
import { scripted } from '@bosun/adapter-scripted'
import { postgresStore, type PostgresStore } from '@bosun/plugin-store-postgres'
import { createHost, listen, type Host, type RunningServer } from '../src/index.js'
import { available, createSession, useCluster } from './cluster-helpers.js'
import { SseReader, waitFor, type Frame } from './helpers.js'

const removedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.removed').map((f) => f.data.id as string)

/** The list a client keeps from a host stream: the hello's, then each session.added and session.removed applied. */
function listed(frames: Frame[]): string[] {
  let list = new Set<string>()
  for (const f of frames) {
    if (f.event === 'hello') list = new Set((f.data.sessions as Array<{ id: string }>).map((s) => s.id))
    else if (f.event === 'session.added') list.add(f.data.id as string)
    else if (f.event === 'session.removed') list.delete(f.data.id as string)
  }
  return [...list].sort()
}

/** Holds what `store`'s watcher hears of creates and removals while `holding`, in the order heard (as one slow LISTEN connection delivers them). */
function gateNotices(store: PostgresStore) {
  const gate = { holding: false, heard: [] as string[], queue: [] as Array<() => void>, release: () => {} }
  gate.release = () => {
    gate.holding = false
    for (const deliver of gate.queue.splice(0)) deliver()
  }
  const watch = store.watch.bind(store)
  store.watch = (options) => {
    const watcher = watch(options)
    const held = <A extends unknown[]>(kind: string, listener: (...args: A) => void) => (...args: A): void => {
      if (!gate.holding) return listener(...args)
      gate.heard.push(`${kind}:${String(args[0])}`)
      gate.queue.push(() => listener(...args))
    }
    return new Proxy(watcher, {
      get(target, property) {
        if (property === 'onCreated') return (listener: (session: string, owner: string) => void) => target.onCreated(held('created', listener))
        if (property === 'onRemoved') return (listener: (session: string) => void) => target.onRemoved(held('removed', listener))
        const value = Reflect.get(target, property) as unknown
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
      },
    })
  }
  return gate
}

describe.skipIf(!available)('host cluster on PostgreSQL — a session removed and made again', () => {
  const cluster = useCluster()
  const open: Array<{ server: RunningServer; host: Host; store: PostgresStore }> = []
  let schema = ''
  afterEach(async () => {
    for (const { server, host, store } of open.splice(0).reverse()) {
      await server.close()
      await host.close()
      await store.close().catch(() => {})
    }
    await cluster.sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  })

  /** Hosts A and B on a new schema, served, each with its watcher's creates and removals gated. */
  async function twoHosts() {
    schema = `c_${randomBytes(6).toString('hex')}`
    return Promise.all(['host-a', 'host-b'].map(async (owner) => {
      const store = postgresStore({ url: cluster.url(), schema, owner, poolSize: 4, leaseTtlMs: 600_000 })
      const gate = gateNotices(store)
      const host = createHost({
        store,
        agentFactory: ({ sessionId, store }) => createAgent({ model: scripted({ responses: [] }), store, sessionId }),
        limits: { keepAliveMs: 200 },
        cluster: { relayWaitMs: 30_000, pollIntervalMs: 200 },
      })
      const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
      open.push({ server, host, store })
      return { url: server.url, gate, host }
    }))
  }

  const hostStream = async (url: string): Promise<SseReader> => {
    const reader = new SseReader(await fetch(`${url}/v1/stream`))
    await reader.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
    return reader
  }
  const remove = async (url: string, id: string): Promise<void> => {
    const response = await fetch(`${url}/v1/sessions/${id}`, { method: 'DELETE' })
    expect(response.status, `DELETE ${id}`).toBe(200)
  }

  it('the remover makes the id again before its own removal NOTIFY comes: it tells the removal once; the other host tells removed then added', { timeout: 90_000 }, async () => {
    const [a, b] = await twoHosts()
    await createSession(a!.url, 's')
    await createSession(b!.url, 'marker')
    const [feedA, feedB] = [await hostStream(a!.url), await hostStream(b!.url)]

    a!.gate.holding = true
    await remove(a!.url, 's')
    await createSession(a!.url, 's')
    await waitFor(() => a!.gate.heard.filter((n) => n.endsWith(':s')).length === 2, 30_000, "A's NOTIFYs of the removal and the create")
    expect(a!.gate.heard.filter((n) => n.endsWith(':s'))).toEqual(['removed:s', 'created:s'])
    // B heard both in commit order.
    await feedB.until((frames) => frames.filter((f) => f.data?.id === 's' && f.event !== 'session.status').length === 2, 30_000)
    expect(feedB.frames.filter((f) => f.data?.id === 's' && f.event !== 'session.status').map((f) => f.event)).toEqual(['session.removed', 'session.added'])

    a!.gate.release()
    // B removes its marker: A hears that after what it held, so anything A tells of those is read first.
    await remove(b!.url, 'marker')
    await feedA.until((frames) => removedIds(frames).includes('marker'), 30_000)
    expect(removedIds(feedA.frames)).toEqual(['s', 'marker'])
    expect(listed(feedA.frames)).toEqual(['s'])
    await feedB.until((frames) => removedIds(frames).includes('marker'), 30_000)
    expect(listed(feedB.frames)).toEqual(['s'])
    expect((await fetch(`${a!.url}/v1/sessions/s`)).status).toBe(200)
  })

  it('another host makes the id again before the removal NOTIFY reaches it: it does not tell the removal; the remover tells removed then added', { timeout: 90_000 }, async () => {
    const [a, b] = await twoHosts()
    await createSession(a!.url, 's')
    await createSession(a!.url, 'marker')
    const [feedA, feedB] = [await hostStream(a!.url), await hostStream(b!.url)]

    b!.gate.holding = true
    await remove(a!.url, 's')
    // A released its lease with the removal: B makes the id again, before it hears of the removal.
    await createSession(b!.url, 's')
    await waitFor(() => b!.gate.heard.filter((n) => n.endsWith(':s')).length === 2, 30_000, "B's NOTIFYs of the removal and the create")
    expect(b!.gate.heard.filter((n) => n.endsWith(':s'))).toEqual(['removed:s', 'created:s'])

    b!.gate.release()
    await remove(a!.url, 'marker')
    await feedB.until((frames) => removedIds(frames).includes('marker'), 30_000)
    expect(removedIds(feedB.frames)).toEqual(['marker'])
    expect(listed(feedB.frames)).toEqual(['s'])
    await feedA.until((frames) => removedIds(frames).includes('marker') && listed(frames).includes('s'), 30_000)
    expect(feedA.frames.filter((f) => f.data?.id === 's' && f.event !== 'session.status').map((f) => f.event)).toEqual(['session.removed', 'session.added'])
    expect(listed(feedA.frames)).toEqual(['s'])
    expect((await fetch(`${b!.url}/v1/sessions/s`)).status).toBe(200)
  })
})
