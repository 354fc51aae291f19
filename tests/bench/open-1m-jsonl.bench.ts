// Opening a 1,000,000-event session from the JSONL store, side by side with a plain parse of the
// same file (read it, split the lines, JSON.parse each). Opened two ways: `store.open(id)` alone
// (read, UTF-8 and torn-tail check, parse, shape check, deep-freeze), and
// `createAgent({ model: scripted(), store, sessionId })` — the store's open plus the core's
// rebuild: event-type check, inbox replay, surface rebuild, open-turn repair check, turn counter.
// The file is generated once, untimed, through the store's own `create` (one write, one fsync).
// Events/s = 1,000,000 / time; the `[bench]` lines print it. Each open takes seconds, so each
// contender runs once per round, in 3 interleaved rounds (see harness.ts), no warm-up; the
// figure is the median of the 3.
// Run: `pnpm bench` (alone: `pnpm exec vitest bench --run tests/bench/open-1m-jsonl`).
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { bench, describe } from 'vitest'
import { scripted } from '@bosun/adapter-scripted'
import { createAgent } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { header, sessionLog } from './events.js'
import { fmt, phaseOptions, quantile, removeDir, report, tempDir } from './harness.js'

const LENGTH = 1_000_000
/** One measured iteration per contender and round, no warm-up; OPEN_ROUNDS rounds, interleaved. */
const TIMING = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 }
const OPEN_ROUNDS = 3

describe(`open a ${fmt(LENGTH)}-event session, JSONL store`, async () => {
  const dir = tempDir('open-jsonl')
  const file = join(dir, 'big.jsonl')
  const store = jsonlStore({ dir })
  {
    const generated = performance.now()
    const stored = await store.create(header('big'), sessionLog(LENGTH))
    await stored.writer.close()
    const { size } = await stat(file)
    report(`open-jsonl: generated ${fmt(LENGTH)} events, ${fmt(size / 1e6, 1)} MB (${fmt(size / LENGTH)} bytes/line) in ${fmt(performance.now() - generated)} ms`)
  }

  /** Keeps a result alive until the next iteration starts, so no work can be optimised away. */
  const sink: unknown[] = []
  const contenders: [string, () => Promise<number>][] = []
  const contender = (name: string, open: () => Promise<number>) => contenders.push([name, open])

  contender('plain: readFile + split + JSON.parse each line', async () => {
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines.pop()
    const events: unknown[] = new Array(lines.length - 1)
    for (let i = 1; i < lines.length; i++) events[i - 1] = JSON.parse(lines[i]!)
    sink[0] = events[events.length - 1]
    return events.length
  })

  contender('store.open(id)', async () => {
    const stored = (await store.open('big'))!
    const length = stored.events.length
    sink[0] = stored.events[length - 1]
    await stored.writer.close()
    return length
  })

  contender('createAgent (store.open + Session + Inbox + Surface + repair check)', async () => {
    const agent = await createAgent({ model: scripted(), store, sessionId: 'big' })
    const length = agent.session.length
    sink[0] = agent.surface.messages.length
    await agent.close()
    return length
  })

  // One iteration per contender per round, the rounds interleaved (see harness.ts).
  const times = new Map<string, number[]>()
  for (let round = 1; round <= OPEN_ROUNDS; round++) {
    describe(`round ${round}/${OPEN_ROUNDS}`, () => {
      for (const [index, [name, open]] of contenders.entries()) {
        bench(
          name,
          async () => {
            sink.length = 0
            const start = performance.now()
            const length = await open()
            const list = times.get(name) ?? []
            list.push(performance.now() - start)
            times.set(name, list)
            if (length !== LENGTH) throw new Error(`${name}: read ${length} events, expected ${LENGTH}`)
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
                `open-jsonl ${name}: median ${fmt(median)} ms = ${fmt((LENGTH / median) * 1000)} events/s, ` +
                  `best ${fmt(sorted[0]!)} ms = ${fmt((LENGTH / sorted[0]!) * 1000)} events/s (runs: ${list.map((t) => fmt(t)).join(', ')} ms)`,
              )
              // The last measurement of the file: release the store and remove the generated files.
              if (index === contenders.length - 1) void store.close().catch(() => {}).finally(() => removeDir(dir))
            },
          ),
        )
      }
    })
  }
})
