// A removed session never comes back through the store journal: not after a crash before the
// journal's checkpoint (its records are still there), not from another store's journal, and not
// into a session created again under its id with the very same header line — whose own events,
// acknowledged, must all survive a crash. Crashes are images of the folder copied while the
// stores are live (crash-image.ts: no lock files, so every journal in the copy is a dead one).
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import fc from 'fast-check'
import type { SessionWriter, Store } from '@bosun/core'
import { jsonlStore } from './store.js'
import { copyStoreFiles, journalFiles } from './testing/crash-image.js'
import { event, header } from './testing/fixtures.js'
import { tempDir } from './testing/recording-fs.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

let images = 0
/** What a crash of every process writing `from` leaves: a copy of its files, in a fresh folder. */
async function crashImage(from: string): Promise<string> {
  const image = join(dir, `image-${images++}`)
  await mkdir(image)
  // A store that never wrote has made no folder yet.
  await mkdir(from, { recursive: true })
  await copyStoreFiles(from, image)
  return image
}

/** The events a fresh store finds in `id`, opened (replaying every journal) — undefined for none — and what read() and list() say. */
async function found(folder: string, id: string): Promise<{ opened?: number; read?: number; listed: boolean }> {
  const store = jsonlStore({ dir: folder })
  const read = (await store.read!(id))?.events.length
  const listed = (await store.list()).some((entry) => entry.id === id)
  const opened = await store.open(id)
  await opened?.writer.close()
  await store.close()
  return { ...(opened ? { opened: opened.events.length } : {}), ...(read === undefined ? {} : { read }), listed }
}

async function appendFlushed(writer: SessionWriter, from: number, count: number): Promise<void> {
  for (let seq = from; seq < from + count; seq++) writer.append(event(seq))
  await writer.flush()
}

it('removed, then a crash before the journal checkpoints: the session is not back, and a new one of its id with the same header starts empty', async () => {
  const live = join(dir, 'live')
  const store = jsonlStore({ dir: live, batchWindowMs: 10_000 })
  const { writer } = await store.create(header('s'))
  await appendFlushed(writer, 0, 3)
  await writer.close()
  expect(await store.remove!('s')).toBe(true)
  // The journal still holds the removed session's records (its bytes: see the README).
  expect(await journalFiles(live)).toHaveLength(1)
  expect(await found(await crashImage(live), 's')).toEqual({ listed: false })

  const again = await store.create(header('s'))
  await appendFlushed(again.writer, 0, 1)
  // Crashed with the new session open: it has its one acknowledged event, none of the removed one's.
  expect(await found(await crashImage(live), 's')).toEqual({ opened: 1, read: 1, listed: true })
  await again.writer.close()
  expect(await found(await crashImage(live), 's')).toEqual({ opened: 1, read: 1, listed: true })
  await store.close()
})

it("another store's journal, live or left by a crash, never puts a removed session's events into a new session of its id", async () => {
  const live = join(dir, 'live')
  const writerStore = jsonlStore({ dir: live, batchWindowMs: 10_000 })
  const { writer } = await writerStore.create(header('s'))
  await appendFlushed(writer, 0, 4)
  // Closed: the lock is free, but this store's journal keeps the records until it checkpoints or closes.
  await writer.close()
  const remover = jsonlStore({ dir: live })
  expect(await remover.remove!('s')).toBe(true)
  const again = await remover.create(header('s'))
  await again.writer.close()
  // The writer store is still alive: an open() replays its journal all the same.
  expect(await found(live, 's')).toEqual({ opened: 0, read: 0, listed: true })
  // Its process dies: its journal is a dead one, swept by the next store.
  expect(await found(await crashImage(live), 's')).toEqual({ opened: 0, read: 0, listed: true })
  await Promise.all([writerStore.close(), remover.close()])
})

const ID = fc.constantFrom('a', 'b', 'c')
const step = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), id: ID, count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('close' as const), id: ID }),
  fc.record({ kind: fc.constant('remove' as const), id: ID }),
  fc.record({ kind: fc.constant('crash' as const) }),
)

it('property: through random appends, closes, removals and crashes, a removed session never reappears and the others keep every acknowledged event', async () => {
  let run = 0
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      let folder = join(dir, `run-${run++}`)
      let store: Store = jsonlStore({ dir: folder, batchWindowMs: 10_000 })
      const stores = [store]
      /** Acknowledged events of each stored session (every session is created with the same header per id). */
      const model = new Map<string, number>()
      const writers = new Map<string, SessionWriter>()
      const check = async (at: string) => {
        for (const id of ['a', 'b', 'c']) {
          const expected = model.get(id)
          const read = await store.read!(id)
          expect(read?.events.length, `${at}: ${id}`).toBe(expected)
          if (expected !== undefined) read!.events.forEach((e, seq) => expect(e).toEqual(event(seq)))
        }
      }
      for (const [index, next] of steps.entries()) {
        if (next.kind === 'append') {
          let writer = writers.get(next.id)
          if (writer === undefined) {
            const opened = (await store.open(next.id)) ?? (await store.create(header(next.id)))
            expect(opened.events.length).toBe(model.get(next.id) ?? 0)
            writer = opened.writer
            writers.set(next.id, writer)
          }
          const from = model.get(next.id) ?? 0
          await appendFlushed(writer, from, next.count)
          model.set(next.id, from + next.count)
        } else if (next.kind === 'close') {
          await writers.get(next.id)?.close()
          writers.delete(next.id)
        } else if (next.kind === 'remove') {
          await writers.get(next.id)?.close()
          writers.delete(next.id)
          expect(await store.remove!(next.id)).toBe(model.has(next.id))
          model.delete(next.id)
        } else {
          // Every writer and store of the folder dies; work goes on in what the crash left.
          folder = await crashImage(folder)
          writers.clear()
          store = jsonlStore({ dir: folder, batchWindowMs: 10_000 })
          stores.push(store)
        }
        await check(`step ${index} (${next.kind})`)
      }
      folder = await crashImage(folder)
      store = jsonlStore({ dir: folder })
      stores.push(store)
      await check('after a last crash')
      for (const id of ['a', 'b', 'c']) {
        const opened = await store.open(id)
        expect(opened?.events.length, `opened ${id}`).toBe(model.get(id))
        await opened?.writer.close()
      }
      for (const each of stores) await each.close().catch(() => {})
    }),
    { numRuns: 40 },
  )
}, 180_000)
