// A cluster host's LISTEN connection first comes up after its streams may have opened: a host
// stream (GET /v1/stream) opened before it keeps its one `hello` and is sent `session.added` for
// a session another host made while no NOTIFY reached this host — not a second `hello`. A real
// reconnect (NOTIFYs of any kind lost) still sends a new `hello`. Real PostgreSQL, B's LISTEN
// connection held by a proxy until the test lets it through, two hosts served on 127.0.0.1.
import { describe, expect, it } from 'vitest'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { SseReader, waitFor } from './helpers.js'
import { available, createSession as create, listenGate, useCluster, useServers } from './cluster-helpers.js'

type Frame = { event: string; data?: any }

const addedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.added').map((f) => f.data.id as string)
const hellos = (frames: Frame[]): string[][] => frames.filter((f) => f.event === 'hello').map((f) => (f.data.sessions as { id: string }[]).map((s) => s.id).sort())

describe.skipIf(!available)("host cluster on PostgreSQL — the host stream and the LISTEN connection's first connect", () => {
  const cluster = useCluster()
  const serve = useServers()

  it('a stream opened before the first connect: one hello, then session.added for the session made meanwhile; a reconnect: a new hello', { timeout: 90_000 }, async () => {
    const gate = await listenGate(cluster.url())
    try {
      const [a, b] = cluster.hosts(2, { storeUrl: (url, i) => (i === 1 ? gate.url : url) })
      const [onA, onB] = [await serve(a!), await serve(b!)]
      const watcher = b!.host.cluster!.watcher as unknown as Watcher
      await create(onA, 'before')
      await waitFor(() => gate.held() === 1, 30_000, "B's LISTEN connection to wait at the proxy")

      const feed = new SseReader(await fetch(`${onB}/v1/stream`))
      await feed.until((frames) => frames.some((f) => f.event === 'hello'), 30_000)
      expect(watcher.listening, 'B does not listen yet').toBe(false)
      // Committed after B's hello, its NOTIFY sent while B does not listen: B never hears it.
      await create(onA, 'meanwhile')
      gate.release()
      await watcher.whenListening()
      await create(onA, 'after')

      const told = (frames: Frame[], id: string) => addedIds(frames).includes(id) || hellos(frames).slice(1).some((ids) => ids.includes(id))
      await feed.until((frames) => told(frames, 'meanwhile') && told(frames, 'after'), 30_000)
      expect(hellos(feed.frames)).toEqual([['before']])
      expect(addedIds(feed.frames).sort()).toEqual(['after', 'meanwhile'])
      // As for any session.added: the row follows.
      const added = feed.frames.findIndex((f) => f.event === 'session.added' && f.data.id === 'meanwhile')
      expect(feed.frames.findIndex((f, i) => i > added && f.event === 'session.status' && f.data.id === 'meanwhile'), 'the row after its session.added').toBeGreaterThan(added)

      // A reconnect may have lost any NOTIFY: the whole list again.
      await cluster.sql('SELECT pg_terminate_backend($1)', [watcher.backendPid])
      await feed.until((frames) => hellos(frames).length === 2, 30_000)
      expect(hellos(feed.frames)[1]).toEqual(['after', 'before', 'meanwhile'])
      await waitFor(() => watcher.listening, 30_000, 'B to listen again')
      await create(onA, 'last')
      await feed.until((frames) => addedIds(frames).includes('last'), 30_000)
      expect(hellos(feed.frames)).toHaveLength(2)
      expect(addedIds(feed.frames).sort()).toEqual(['after', 'last', 'meanwhile'])
      await feed.cancel()
    } finally {
      gate.release()
      gate.close()
    }
  })
})
