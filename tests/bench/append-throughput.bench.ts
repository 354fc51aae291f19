// Sustained append throughput with write-behind, JSONL and SQLite side by side with the raw
// limit of the machine (same bytes, same batch sizes, one write + one fdatasync per batch).
// One iteration = B events appended, then one flush (one batch). Events/s = hz × B. Contenders
// run in ROUNDS interleaved rounds (see harness.ts); the `[bench]` lines print events/s summed
// over the rounds, and each round's figure. Run: `pnpm bench` (this file alone: `pnpm exec vitest bench --run tests/bench/append-throughput`).
import { join } from 'node:path'
import { bench, describe } from 'vitest'
import { Session, type SessionEvent, type SessionWriter, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { eventPool, header } from './events.js'
import { ROUNDS, RawLog, fmt, phaseOptions, removeDir, report, tempDir } from './harness.js'

const BATCH_SIZES = [1, 16, 256]
const pool = eventPool(4096)
/** Per round; every contender runs ROUNDS times, interleaved with the others. */
const TIMING = { time: 500, warmupTime: 100, iterations: 10, warmupIterations: 3 }

interface Contender {
  /** Appends `count` events and makes them durable as one batch. */
  batch(count: number): Promise<void>
  close(): Promise<void>
}

/** Events as a Session builds them (seq, time, type, data), from the realistic pool, round-robin. */
function eventSource() {
  let seq = 0
  return (): SessionEvent => {
    const body = pool[seq % pool.length]!
    return { seq: seq++, time: Date.now(), type: body.type, data: body.data } as SessionEvent
  }
}

async function raw(dir: string): Promise<Contender> {
  const log = await RawLog.create(join(dir, 'raw.jsonl'))
  const next = eventSource()
  return {
    batch: (count) => {
      const events: SessionEvent[] = []
      for (let i = 0; i < count; i++) events.push(next())
      return log.write(events)
    },
    close: () => log.close(),
  }
}

/** The store's writer fed directly (the store's own cost). */
async function writer(store: Store): Promise<Contender> {
  const { writer } = await store.create(header('bench'))
  const next = eventSource()
  return {
    batch: (count) => {
      for (let i = 0; i < count; i++) writer.append(next())
      return writer.flush()
    },
    close: async () => {
      await writer.close()
      await store.close()
    },
  }
}

/** Through `Session.append` (validation and deep-freeze of fresh data, as the agent loop appends). */
async function session(store: Store): Promise<Contender> {
  const stored = await store.create(header('bench'))
  const session = new Session(stored.header, stored.events, { writer: stored.writer as SessionWriter })
  let i = 0
  return {
    batch: (count) => {
      for (let k = 0; k < count; k++) {
        const body = pool[i++ % pool.length]!
        session.append(body.type, body.data)
      }
      return session.flush()
    },
    close: async () => {
      await session.close()
      await store.close()
    },
  }
}

const contenders: [string, (dir: string) => Promise<Contender>][] = [
  ['raw write+fdatasync', raw],
  ['jsonl writer', (dir) => writer(jsonlStore({ dir }))],
  ['sqlite writer', (dir) => writer(sqliteStore({ file: join(dir, 'bench.sqlite') }))],
  ['jsonl via Session.append', (dir) => session(jsonlStore({ dir }))],
  ['sqlite via Session.append', (dir) => session(sqliteStore({ file: join(dir, 'bench.sqlite') }))],
]

/** Per contender and batch size: what every round measured, summed for the figure. */
interface Tally {
  dir: string
  contender: Contender | undefined
  events: number[]
  busy: number[]
}
const tallies = new Map<string, Tally>()

for (let round = 1; round <= ROUNDS; round++) {
  for (const size of BATCH_SIZES) {
    describe(`append throughput, round ${round}/${ROUNDS}, ${size} event(s) per flush (events/s = hz × ${size})`, () => {
      for (const [name, make] of contenders) {
        const key = `${name}, ${size}/flush`
        let events = 0
        let busy = 0
        bench(
          key,
          async () => {
            const start = performance.now()
            await tallies.get(key)!.contender!.batch(size)
            busy += performance.now() - start
            events += size
          },
          phaseOptions(
            TIMING,
            async (mode) => {
              // One file (or database) per contender and batch size, kept across the rounds.
              if (!tallies.has(key)) {
                const dir = tempDir('append')
                tallies.set(key, { dir, contender: await make(dir), events: [], busy: [] })
              }
              if (mode === 'run') {
                events = 0
                busy = 0
              }
            },
            (mode) => {
              if (mode !== 'run') return
              const tally = tallies.get(key)!
              tally.events.push(events)
              tally.busy.push(busy)
              if (round < ROUNDS) return
              const total = tally.events.reduce((a, b) => a + b, 0)
              const time = tally.busy.reduce((a, b) => a + b, 0)
              const rates = tally.events.map((n, i) => fmt((n / tally.busy[i]!) * 1000))
              report(`append ${key}: ${fmt((total / time) * 1000)} events/s over ${ROUNDS} rounds (${fmt(total)} events in ${fmt(time)} ms; rounds: ${rates.join(', ')})`)
              const done = tally.contender!
              tally.contender = undefined
              void done.close().catch(() => {}).finally(() => removeDir(tally.dir))
            },
          ),
        )
      }
    })
  }
}
