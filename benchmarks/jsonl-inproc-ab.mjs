// Two builds of the JSONL store in ONE process, alternated round by round (ABBA…):
//   BENCH_STORE_JSONL=<other build>/dist/index.js node benchmarks/jsonl-inproc-ab.mjs agent|store [sessions=8] [turns] [rounds=12]
// "before" is the build BENCH_STORE_JSONL names (e.g. ab-stores.mjs's way: `git archive <ref>` of
// the package, `tsc -p … --noCheck`), "after" this tree's dist. Prints one JSON line: median over
// rounds (min–max), after ÷ before, and in how many rounds "after" used less CPU.
//   agent  figure 4b's JSONL cell: the Bosun contender (one shared store, 40 prior messages),
//          `sessions` agents running `turns` turns each (default 40) after 3 warm-up turns of an
//          extra session; turns/s and CPU ms per turn.
//   store  the store alone: `sessions` writers in a folder on /dev/shm (tmpfs: the disk left out),
//          each appending 10 events and awaiting flush(), `turns` flushes each (default 300);
//          CPU µs per flush.
// Why one process: both builds share the heap, the JIT's state and the machine's load of the
// moment, so a CPU difference of a few percent shows where child processes (ab-stores.mjs) spread
// by ±20% on a busy machine.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median } from './lib/children.mjs'
import { timedTurns } from './lib/durable-turns.mjs'

const USAGE = 'usage: BENCH_STORE_JSONL=<other build>/dist/index.js node benchmarks/jsonl-inproc-ab.mjs agent|store [sessions=8] [turns] [rounds=12]'
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}
const before = process.env.BENCH_STORE_JSONL
if (!['agent', 'store'].includes(args[0]) || args.length > 4 || args.slice(1).some((a) => !/^[1-9]\d*$/.test(a)) || !before) {
  console.error(USAGE)
  process.exit(2)
}
const mode = args[0]
const sessions = Number(args[1] ?? 8)
const turns = Number(args[2] ?? (mode === 'agent' ? 40 : 300))
const rounds = Number(args[3] ?? 12)
const entries = { before, after: '@bosun/plugin-store-jsonl' }

/** Figure 4b's cell with one build; the contender reads BENCH_STORE_JSONL when it is made. */
async function agentRound(entry) {
  const { contender } = await import('./contenders/bosun.mjs')
  process.env.BENCH_STORE_JSONL = entry
  const c = await contender('jsonl', { prior: 40, chunks: 10, chunkSize: 10, sharedStore: true })
  const agents = []
  for (let i = 0; i < sessions; i++) agents.push(await c.fresh())
  const warm = await c.fresh()
  for (let i = 0; i < 3; i++) await warm.turn(`warm-up ${i}`)
  const { wallMs, cpu } = await timedTurns(agents, turns)
  for (const agent of [...agents, warm]) await agent.close()
  await c.cleanup()
  return { 'turns/s': (sessions * turns) / (wallMs / 1000), cpu: (cpu.user + cpu.system) / 1000 / (sessions * turns) }
}

const EVENTS = [
  { type: 'assistant/chunk', data: { chunk: { type: 'text-delta', text: 'lorem ipsum dolor sit amet, consectetur adipiscing elit' } } },
  { type: 'request/header', data: { step: 1, model: 'bench', messages: 40, tools: ['lookup'] } },
  { type: 'tool/call', data: { callId: 'call_1', name: 'lookup', args: { key: 'alpha' } } },
]

/** The store alone with one build: a fresh folder and writers each round. */
async function storeRound(entry) {
  const { jsonlStore } = await import(entry)
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'bosun-inproc-ab-'))
  const store = jsonlStore({ dir, batchWindowMs: 0 })
  const writers = []
  for (let i = 0; i < sessions; i++) writers.push((await store.create({ id: `s${i}`, version: 1, createdAt: 0 })).writer)
  const cpu0 = process.cpuUsage()
  await Promise.all(writers.map(async (writer) => {
    let seq = 0
    for (let f = 0; f < turns; f++) {
      for (let e = 0; e < 10; e++) writer.append({ seq: seq++, time: 1764680000000 + f, ...EVENTS[e % 3] })
      await writer.flush()
    }
  }))
  const cpu = process.cpuUsage(cpu0)
  for (const writer of writers) await writer.close()
  await store.close?.()
  rmSync(dir, { recursive: true, force: true })
  return { cpu: ((cpu.user + cpu.system) / (sessions * turns)) }
}

const run = mode === 'agent' ? agentRound : storeRound
const values = { before: [], after: [] }
// One untimed round of each first: both builds loaded and warm before anything counts.
for (const which of ['before', 'after']) await run(entries[which])
for (let round = 0; round < rounds; round++) {
  for (const which of round % 2 === 0 ? ['before', 'after'] : ['after', 'before']) values[which].push(await run(entries[which]))
}
const show = (xs, digits) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`
const result = { mode, sessions, turns, rounds }
for (const key of Object.keys(values.after[0])) {
  const b = values.before.map((v) => v[key])
  const a = values.after.map((v) => v[key])
  const digits = key === 'turns/s' ? 0 : mode === 'agent' ? 3 : 1
  const label = key === 'cpu' ? (mode === 'agent' ? 'CPU ms / turn' : 'CPU µs / flush') : key
  result[label] = { before: show(b, digits), after: show(a, digits), ratio: Number((median(a) / median(b)).toFixed(3)) }
  if (key === 'cpu') result[label].afterLowerInRounds = `${a.filter((x, i) => x < b[i]).length}/${rounds}`
}
console.log(JSON.stringify(result))
