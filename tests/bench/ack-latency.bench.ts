// Durable acknowledgement latency: the time from `session.append(...)` to the resolution of
// `await session.flush()`, with 1, 8 and 64 sessions appending and flushing concurrently, each
// session its own writer, all in one process (JSONL: one file per session; SQLite: every
// session in one database file, one store). The raw baseline does the same with one file per
// session and one write + one fdatasync per ack.
//
// Every session runs a closed loop (append one realistic event, await flush, repeat). Session 0
// is driven by tinybench (its latency is the vitest table); sessions 1…N-1 loop in the
// background during the measured phase. Rigs run in ROUNDS interleaved rounds (see harness.ts);
// the `[bench]` lines give p50/p99 over the acks of ALL sessions in all rounds, and the total
// acks/s (acks / measured wall time). Run: `pnpm bench` (alone: `pnpm exec vitest bench --run tests/bench/ack-latency`).
import { join } from 'node:path'
import { bench, describe } from 'vitest'
import { Session, type SessionEvent, type SessionWriter, type Store } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { sqliteStore } from '@bosun/plugin-store-sqlite'
import { eventPool, header } from './events.js'
import { ROUNDS, RawLog, fmt, phaseOptions, quantile, removeDir, report, tempDir } from './harness.js'

const CONCURRENCY = [1, 8, 64]
const pool = eventPool(4096)
/** Per round; every rig runs ROUNDS times, interleaved with the others. */
const TIMING = { time: 700, warmupTime: 150, iterations: 10, warmupIterations: 3 }

/** One session's durable append: append one event, resolve once it is durable. */
type Ack = () => Promise<void>
interface Rig {
  acks: Ack[]
  close(): Promise<void>
}

async function rawRig(dir: string, n: number): Promise<Rig> {
  const logs = await Promise.all(Array.from({ length: n }, (_, i) => RawLog.create(join(dir, `raw-${i}.jsonl`))))
  return {
    acks: logs.map((log) => {
      let seq = 0
      return () => {
        const body = pool[seq % pool.length]!
        return log.write([{ seq: seq++, time: Date.now(), type: body.type, data: body.data } as SessionEvent])
      }
    }),
    close: async () => {
      await Promise.all(logs.map((log) => log.close()))
    },
  }
}

async function storeRig(store: Store, n: number): Promise<Rig> {
  const sessions: Session[] = []
  for (let i = 0; i < n; i++) {
    const stored = await store.create(header(`s${i}`))
    sessions.push(new Session(stored.header, stored.events, { writer: stored.writer as SessionWriter }))
  }
  return {
    acks: sessions.map((session) => {
      let i = 0
      return () => {
        const body = pool[i++ % pool.length]!
        session.append(body.type, body.data)
        return session.flush()
      }
    }),
    close: async () => {
      await Promise.all(sessions.map((session) => session.close()))
      await store.close()
    },
  }
}

const rigs: [string, (dir: string, n: number) => Promise<Rig>][] = [
  ['raw write+fdatasync (file per session)', rawRig],
  ['jsonl (file per session)', (dir, n) => storeRig(jsonlStore({ dir }), n)],
  ['sqlite (one database)', (dir, n) => storeRig(sqliteStore({ file: join(dir, 'acks.sqlite') }), n)],
]

/** Per rig and concurrency: the rig (kept across the rounds) and what every round measured. */
interface Tally {
  dir: string
  rig: Rig | undefined
  latencies: number[]
  /** Measured wall time, summed over the rounds. */
  elapsed: number
}
const tallies = new Map<string, Tally>()
/** The background loops of the task that just ended, still finishing their last ack: awaited before the next task starts. */
let settling: Promise<unknown> = Promise.resolve()

for (let round = 1; round <= ROUNDS; round++) {
  for (const n of CONCURRENCY) {
    describe(`durable ack latency, round ${round}/${ROUNDS}, ${n} concurrent session(s)`, () => {
      for (const [name, make] of rigs) {
        const key = `${name}, ${n} session(s)`
        let stop = false
        let loops: Promise<void>[] = []
        let recording = false
        let started = 0
        const timed = async (ack: Ack) => {
          const start = performance.now()
          await ack()
          if (recording) tallies.get(key)!.latencies.push(performance.now() - start)
        }
        const loop = async (ack: Ack) => {
          while (!stop) await timed(ack)
        }
        bench(
          key,
          async () => {
            await timed(tallies.get(key)!.rig!.acks[0]!)
          },
          phaseOptions(
            TIMING,
            async (mode) => {
              await settling
              if (!tallies.has(key)) {
                const dir = tempDir('acks')
                tallies.set(key, { dir, rig: await make(dir, n), latencies: [], elapsed: 0 })
              }
              const tally = tallies.get(key)!
              stop = false
              recording = mode === 'run'
              loops = tally.rig!.acks.slice(1).map(loop)
              started = performance.now()
            },
            (mode) => {
              // Stops the background sessions (they finish their current ack): a SQLite commit
              // resolves in a microtask, so looping sessions would otherwise starve vitest's timers.
              stop = true
              settling = Promise.all(loops)
              if (mode !== 'run') return
              const tally = tallies.get(key)!
              tally.elapsed += performance.now() - started
              recording = false
              if (round < ROUNDS) return
              const sorted = [...tally.latencies].sort((a, b) => a - b)
              report(
                `acks ${key}: p50 ${fmt(quantile(sorted, 0.5), 3)} ms, p99 ${fmt(quantile(sorted, 0.99), 3)} ms, ` +
                  `${fmt((sorted.length / tally.elapsed) * 1000)} acks/s over ${ROUNDS} rounds (${fmt(sorted.length)} acks in ${fmt(tally.elapsed)} ms)`,
              )
              const done = tally.rig!
              tally.rig = undefined
              void settling
                .then(() => done.close())
                .catch(() => {})
                .finally(() => removeDir(tally.dir))
            },
          ),
        )
      }
    })
  }
}
