// The journal's crash properties drive a store the same way: SESSIONS sessions, each "wave" a set
// of flushes made in the same tick (one commit round), each appending `count` events first.
import fc from 'fast-check'
import type { SessionEvent, SessionWriter, Store } from '@bosun/core'
import { event, header } from './fixtures.js'

export const SESSIONS = 3

export interface WaveStep {
  session: number
  count: number
}

/** One commit round's flushes, at most one per session. */
export const wave = fc.array(fc.record({ session: fc.nat(SESSIONS - 1), count: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: SESSIONS })

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
