// Host streams (GET /v1/stream) opened before a cluster host's LISTEN connection first comes up
// keep, for their catch-up at that connect, what they were told — once for all of them (one id
// per session, however many streams), dropped with the last of them, not a set per stream for as
// long as the connection stays down (for a stream's whole life if it never comes up). The catch-up
// still tells each stream exactly the sessions another host made after its own hello. Real
// PostgreSQL, B's LISTEN connection held by a proxy until the test lets it through.
import { describe, expect, it } from 'vitest'
import type { Watcher } from '@bosun/plugin-store-postgres'
import { SseReader, waitFor } from './helpers.js'
import { available, createSession as create, listenGate, useCluster, useServers } from './cluster-helpers.js'

type Frame = { event: string; data?: any }

const addedIds = (frames: Frame[]): string[] => frames.filter((f) => f.event === 'session.added').map((f) => f.data.id as string).sort()
const hellos = (frames: Frame[]): number => frames.filter((f) => f.event === 'hello').length

describe.skipIf(!available)("host cluster on PostgreSQL — what host streams keep for the LISTEN connection's first connect", () => {
  const cluster = useCluster()
  const serve = useServers()

  it('one id per session for all early streams, dropped with the last; each still caught up with what it missed', { timeout: 120_000 }, async () => {
    const gate = await listenGate(cluster.url())
    try {
      const [a, b] = cluster.hosts(2, { storeUrl: (url, i) => (i === 1 ? gate.url : url) })
      const [onA, onB] = [await serve(a!), await serve(b!)]
      const watcher = b!.host.cluster!.watcher as unknown as Watcher
      const held = () => (b!.host.cluster!.feed as unknown as { heldForCatchUp: { streams: number; ids: number } }).heldForCatchUp
      await create(onA, 'a-1')
      await waitFor(() => gate.held() === 1, 30_000, "B's LISTEN connection to wait at the proxy")
      const open = async (): Promise<SseReader> => {
        const feed = new SseReader(await fetch(`${onB}/v1/stream`))
        await feed.until((frames) => hellos(frames) === 1, 30_000)
        return feed
      }

      // A stream that ends before the connect takes what was kept for it along.
      const gone = await open()
      expect(held()).toEqual({ streams: 1, ids: 1 })
      await gone.cancel()
      await waitFor(() => held().streams === 0, 30_000, 'the ended stream to be let go')
      expect(held().ids).toBe(0)

      const first = await open()
      await create(onA, 'a-2') // after first's hello: missed by it (no NOTIFY reaches B)
      await create(onB, 'b-1') // made on B: told to every stream as it is made
      await first.until((frames) => addedIds(frames).includes('b-1'), 30_000)
      const second = await open()
      const others = [await open(), await open(), await open()]
      // Five streams, three sessions: three ids kept, not one set per stream.
      expect(held()).toEqual({ streams: 5, ids: 3 })
      await create(onA, 'a-3') // missed by all
      for (const feed of others) await feed.cancel()
      await waitFor(() => held().streams === 2, 30_000, 'the ended streams to be let go')
      expect(watcher.listening, 'B does not listen yet').toBe(false)

      gate.release()
      await watcher.whenListening()
      await create(onA, 'a-4')
      await first.until((frames) => ['a-2', 'a-3', 'a-4', 'b-1'].every((id) => addedIds(frames).includes(id)), 30_000)
      await second.until((frames) => ['a-3', 'a-4'].every((id) => addedIds(frames).includes(id)), 30_000)
      expect(addedIds(first.frames)).toEqual(['a-2', 'a-3', 'a-4', 'b-1'])
      expect(addedIds(second.frames)).toEqual(['a-3', 'a-4'])
      expect([hellos(first.frames), hellos(second.frames)]).toEqual([1, 1])
      // Both caught up: nothing is kept.
      expect(held()).toEqual({ streams: 0, ids: 0 })
      await first.cancel()
      await second.cancel()
    } finally {
      gate.release()
      gate.close()
    }
  })
})
