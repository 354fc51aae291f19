// What a durable JSONL turn asks of the disk: `node benchmarks/journal-syncs.mjs [sessions=8] [turns=200]`.
// Figure 4b's setup in one process (the Bosun contender, one shared JSONL store, 40 prior
// messages, `sessions` agents each running `turns` turns at once), with every fdatasync timed (a
// wrapper on FileHandle.prototype.datasync) and, when the store's folder is on a file system with a
// jbd2 journal listed in /proc/fs/jbd2 (ext4), the file system's journal commits counted over the
// run. Other processes' writes to the same file system count too: use a file system of its own
// (e.g. an ext4 image on a loop device) for a clean count. Prints one JSON line.
//   TMPDIR          the folder the store is made in (default: the OS temporary folder)
//   BENCH_STORE_JSONL   another build of the store (its dist/index.js), for a before/after
import { readFileSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'

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
proto.datasync = async function timed() {
  const t0 = performance.now()
  try {
    return await datasync.call(this)
  } finally {
    syncMs.push(performance.now() - t0)
  }
}

const { contender } = await import('./contenders/bosun.mjs')
const c = await contender('jsonl', { prior: 40, chunks: 10, chunkSize: 10, sharedStore: true })
const agents = []
for (let i = 0; i < sessions; i++) agents.push(await c.fresh())
syncMs.length = 0
const commits0 = commits()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
await Promise.all(agents.map(async (agent) => {
  for (let i = 0; i < turns; i++) await agent.turn(`question ${i}`)
}))
const wallMs = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
const fsCommits = commits() - commits0
for (const agent of agents) await agent.close()
await c.cleanup()

const sorted = [...syncMs].sort((a, b) => a - b)
const at = (q) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3))
console.log(JSON.stringify({
  sessions,
  turns: sessions * turns,
  turnsPerS: Math.round((sessions * turns) / (wallMs / 1000)),
  cpuMsPerTurn: Number(((cpu.user + cpu.system) / 1000 / (sessions * turns)).toFixed(3)),
  fdatasyncs: syncMs.length,
  fdatasyncMs: { p50: at(0.5), p90: at(0.9), max: at(1) },
  fsJournal: jbd2 ?? null,
  fsJournalCommits: jbd2 ? fsCommits : null,
}))
