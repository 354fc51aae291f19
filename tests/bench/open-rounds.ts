// Shared by the open-a-long-session benchmarks: the two contenders that go through a store (its
// own open, and createAgent on top), and the interleaved rounds that time each contender once per
// round and report the median.
import { bench, describe } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent, type Store } from '@bosun/core'
import { fmt, phaseOptions, quantile, removeDir, report } from './harness.js'

/** A name and an open that resolves with the number of events read. */
export type OpenContender = [name: string, open: () => Promise<number>]

/** One measured iteration per contender and round, no warm-up. */
const TIMING = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 }
export const OPEN_ROUNDS = 3

/** `store.open(id)` alone, and `createAgent` (the store's open plus the core's rebuild). */
export function storeContenders(store: Store, id: string, sink: unknown[]): OpenContender[] {
  return [
    ['store.open(id)', async () => {
      const stored = (await store.open(id))!
      const length = stored.events.length
      sink[0] = stored.events[length - 1]
      await stored.writer.close()
      return length
    }],
    ['createAgent (store.open + Session + Inbox + Surface + repair check)', async () => {
      const agent = await createAgent({ model: scripted(), store, sessionId: id })
      const length = agent.session.length
      sink[0] = agent.surface.messages.length
      await agent.close()
      return length
    }],
  ]
}

/**
 * Registers OPEN_ROUNDS interleaved rounds of one iteration per contender; after the last round
 * each contender's median and best are reported as `[bench] <label> …`, and once the last one is
 * reported the store is closed and `dir` removed.
 */
export function openRounds(label: string, length: number, contenders: readonly OpenContender[], sink: unknown[], store: Store, dir: string): void {
  const times = new Map<string, number[]>()
  for (let round = 1; round <= OPEN_ROUNDS; round++) {
    describe(`round ${round}/${OPEN_ROUNDS}`, () => {
      for (const [index, [name, open]] of contenders.entries()) {
        bench(
          name,
          async () => {
            sink.length = 0
            const start = performance.now()
            const read = await open()
            const list = times.get(name) ?? []
            list.push(performance.now() - start)
            times.set(name, list)
            if (read !== length) throw new Error(`${name}: read ${read} events, expected ${length}`)
          },
          phaseOptions(
            TIMING,
            async () => {},
            (mode) => {
              if (mode !== 'run' || round < OPEN_ROUNDS) return
              const list = times.get(name)!
              const sorted = [...list].sort((a, b) => a - b)
              const median = quantile(sorted, 0.5)
              report(
                `${label} ${name}: median ${fmt(median)} ms = ${fmt((length / median) * 1000)} events/s, ` +
                  `best ${fmt(sorted[0]!)} ms = ${fmt((length / sorted[0]!) * 1000)} events/s (runs: ${list.map((t) => fmt(t)).join(', ')} ms)`,
              )
              // The last measurement of the file: release the store and remove the generated files.
              if (index === contenders.length - 1) void store.close().catch(() => {}).finally(() => removeDir(dir))
            },
          ),
        )
      }
    })
  }
}
