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
import { describe } from 'vitest'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { header, sessionLog } from './events.js'
import { fmt, report, tempDir } from './harness.js'
import { openRounds, storeContenders, type OpenContender } from './open-rounds.js'

const LENGTH = 1_000_000

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
  const contenders: OpenContender[] = []
  const contender = (name: string, open: () => Promise<number>) => contenders.push([name, open])

  contender('plain: readFile + split + JSON.parse each line', async () => {
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines.pop()
    const events: unknown[] = new Array(lines.length - 1)
    for (let i = 1; i < lines.length; i++) events[i - 1] = JSON.parse(lines[i]!)
    sink[0] = events[events.length - 1]
    return events.length
  })

  contenders.push(...storeContenders(store, 'big', sink))
  openRounds('open-jsonl', LENGTH, contenders, sink, store, dir)
})
