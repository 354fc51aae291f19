// What a durable JSONL turn asks of the disk: `node benchmarks/journal-syncs.mjs [sessions=8] [turns=200]`.
// Figure 4b's setup in one process (the Bosun contender, one shared JSONL store, 40 prior
// messages, `sessions` agents each running `turns` turns at once), with every fdatasync timed (a
// wrapper on FileHandle.prototype.datasync) and, when the store's folder is on a file system with a
// jbd2 journal listed in /proc/fs/jbd2 (ext4), the file system's journal commits counted over the
// run. Other processes' writes to the same file system count too: use a file system of its own
// (e.g. an ext4 image on a loop device) for a clean count. Prints one JSON line.
// `cycle` splits the wall time at the journal's fdatasyncs (they are chained: one at a time):
// `waitMs` is spent inside them (the main thread has nothing to do then when every session waits
// for the one in flight), `roundMs` from a round's first page-cache write (fs.writeSync, wrapped
// through syncBuiltinESMExports; the store's fstat, encoding and writes) to the fdatasync it
// ends with, `computeMs` the rest (the sessions' turns up to their next flush, the round's
// macrotask hop). `batchesPerSync`: session-file writes per journal fdatasync.
//   TMPDIR          the folder the store is made in (default: the OS temporary folder)
//   BENCH_STORE_JSONL   another build of the store (its dist/index.js), for a before/after
import fs, { readFileSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { timedTurns } from './lib/durable-turns.mjs'

const USAGE = 'usage: node benchmarks/journal-syncs.mjs [sessions=8] [turns=200]'
const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}
if (args.length > 2 || args.some((a) => !/^[1-9]\d*$/.test(a))) {
  console.error(USAGE)
  process.exit(2)
}
const [sessions, turns] = [Number(args[0] ?? 8), Number(args[1] ?? 200)]

/** The jbd2 entry of the device holding `dir` (e.g. "vda-8"), or undefined. */
function jbd2Of(dir) {
  try {
    const dev = statSync(dir).dev
    const name = /DEVNAME=(\S+)/.exec(readFileSync(`/sys/dev/block/${Math.floor(dev / 256)}:${dev % 256}/uevent`, 'utf8'))?.[1]
    return name && readFileSync(`/proc/fs/jbd2/${name}-8/info`, 'utf8') ? `${name}-8` : undefined
  } catch {
    return undefined
  }
}
const jbd2 = jbd2Of(tmpdir())
const commits = () => (jbd2 ? Number(readFileSync(`/proc/fs/jbd2/${jbd2}/info`, 'utf8').split(' ')[0]) : NaN)

// Every fdatasync through a FileHandle (what the store uses), timed.
const probe = await open(new URL(import.meta.url), 'r')
const proto = Object.getPrototypeOf(probe)
await probe.close()
const datasync = proto.datasync
const syncMs = []
// The wall time's phases: [start, end] of every fdatasync, and the time of every write between them.
const syncSpans = []
const writeTimes = []
proto.datasync = async function timed() {
  const t0 = performance.now()
  try {
    return await datasync.call(this)
  } finally {
    const t1 = performance.now()
    syncMs.push(t1 - t0)
    syncSpans.push([t0, t1])
  }
}
const writeSync = fs.writeSync
fs.writeSync = function timedWrite(...args) {
  writeTimes.push(performance.now())
  return writeSync.apply(this, args)
}
syncBuiltinESMExports()

const { contender } = await import('./contenders/bosun.mjs')
const c = await contender('jsonl', { prior: 40, chunks: 10, chunkSize: 10, sharedStore: true })
const agents = []
for (let i = 0; i < sessions; i++) agents.push(await c.fresh())
syncMs.length = syncSpans.length = writeTimes.length = 0
const commits0 = commits()
const { t0, wallMs, cpu, elu } = await timedTurns(agents, turns)
const cycle = phases(t0, t0 + wallMs)
const fsCommits = commits() - commits0
for (const agent of agents) await agent.close()
await c.cleanup()

/**
 * Splits [from, to] at the fdatasyncs: time inside them, time from the first write after the
 * previous one to the fdatasync (the round), and the rest (compute). Overlapping fdatasyncs (the
 * journal's are chained; a checkpoint's run together) count once.
 */
function phases(from, to) {
  let waitMs = 0
  let roundMs = 0
  let lastEnd = from
  let w = 0
  let phases = 0
  for (const [start, end] of syncSpans) {
    if (end <= lastEnd || start < from || end > to) continue
    while (w < writeTimes.length && writeTimes[w] < lastEnd) w++
    if (w < writeTimes.length && writeTimes[w] < start) roundMs += start - writeTimes[w]
    waitMs += end - Math.max(start, lastEnd)
    lastEnd = end
    phases++
  }
  const writes = writeTimes.filter((t) => t >= from && t <= to).length
  const computeMs = to - from - waitMs - roundMs
  const perTurn = (ms) => Number((ms / (sessions * turns)).toFixed(3))
  return {
    computeMs: perTurn(computeMs), roundMs: perTurn(roundMs), waitMs: perTurn(waitMs),
    waitShare: Number((waitMs / (to - from)).toFixed(3)),
    // A round writes each member's file, then the journal once: writes minus syncs are the
    // batches (a checkpoint's file syncs, run together, count as one).
    batchesPerSync: Number(((writes - phases) / phases).toFixed(2)),
  }
}

const sorted = [...syncMs].sort((a, b) => a - b)
const at = (q) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3))
console.log(JSON.stringify({
  sessions,
  turns: sessions * turns,
  turnsPerS: Math.round((sessions * turns) / (wallMs / 1000)),
  cpuMsPerTurn: Number(((cpu.user + cpu.system) / 1000 / (sessions * turns)).toFixed(3)),
  eventLoopUtilization: Number(elu.utilization.toFixed(3)),
  fdatasyncs: syncMs.length,
  fdatasyncMs: { p50: at(0.5), p90: at(0.9), max: at(1) },
  fsJournal: jbd2 ?? null,
  fsJournalCommits: jbd2 ? fsCommits : null,
  cycleMsPerTurn: cycle,
}))
