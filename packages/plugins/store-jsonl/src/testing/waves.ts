// The journal's crash properties drive a store the same way: SESSIONS sessions, each "wave" a set
// of flushes made in the same tick (one commit round), each appending `count` events first.
import fc from 'fast-check'
import { expect } from 'vitest'
import type { SessionEvent, SessionWriter, Store } from '@bosun/core'
import { jsonlStore } from '../store.js'
import { journalFiles } from './crash-image.js'
import { event, fileText, header, readSession } from './fixtures.js'

export const SESSIONS = 3

export interface WaveStep {
  session: number
  count: number
}

/** One commit round's flushes, at most one per session (`uniqueArray` by session: `fc.array` allowed a session twice). */
export const wave = fc.uniqueArray(fc.record({ session: fc.nat(SESSIONS - 1), count: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: SESSIONS, selector: (step) => step.session })

export interface WaveSessions {
  ids: string[]
  /** Every event appended to each session, acknowledged or not. */
  appended: SessionEvent[][]
  /** Appends and flushes one wave; the flushes' promises, in the wave's order. */
  flushWave(steps: WaveStep[]): Promise<void>[]
}

/** Creates the sessions `s0` … in `store`. */
export async function waveSessions(store: Store): Promise<WaveSessions> {
  const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`)
  const writers: SessionWriter[] = []
  for (const id of ids) writers.push((await store.create(header(id))).writer)
  const appended: SessionEvent[][] = ids.map(() => [])
  const flushWave = (steps: WaveStep[]) =>
    steps.map(({ session, count }) => {
      for (let n = 0; n < count; n++) {
        const e = event(appended[session]!.length)
        appended[session]!.push(e)
        writers[session]!.append(e)
      }
      return writers[session]!.flush()
    })
  return { ids, appended, flushWave }
}

/**
 * Opens every session of a crash image in `image` with a fresh store and checks what recovery
 * gave: every acknowledged event (`ackedCounts[i]` of session i's), in order, nothing twice, at
 * most unacknowledged ones after them; no torn line left in the file; no journal left behind.
 */
export async function expectRecovered(image: string, { ids, appended }: WaveSessions, ackedCounts: readonly number[]): Promise<void> {
  const recovered = jsonlStore({ dir: image })
  for (const [i, id] of ids.entries()) {
    const { events, writer } = (await recovered.open(id))!
    expect(events.length).toBeGreaterThanOrEqual(ackedCounts[i]!)
    expect(events).toEqual(appended[i]!.slice(0, events.length))
    await writer.close()
    expect(await readSession(image, id)).toBe(fileText(header(id), events))
  }
  await recovered.close()
  expect(await journalFiles(image)).toEqual([])
}
