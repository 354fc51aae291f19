// What one idle Bosun session of figure 6 is made of (docs/benchmarks.md, section 6, goal 2):
//   node --expose-gc benchmarks/memory-breakdown.mjs [sessions=2000]
// Each part runs in its own child process: build `sessions` copies of the part, keep them all, and
// report (heapUsed after − heapUsed before) ÷ sessions, both read after `global.gc()`. The parts
// are nested, so the differences between consecutive rows are what each layer adds:
//   parsed     the 40-message history as a store reads it back (lib/stored-log.mjs: parsed JSON
//              events, frozen, short strings shared; one array), nothing else
//   arrays     + the memory store's array and the session's array of the same events
//   session    + a `Session` over them (no writer) and its `Surface` (the model-visible projection)
//   inbox      + the `Inbox` projection
//   empty      an agent from `createAgent` with its own memory store and NO history: the machinery
//   agent      figure 6's idle session (an agent with its own memory store loaded with the history)
// and, apart, what would remain of the history if past events were not kept as live objects:
//   surface    the `Surface` alone (built from the log, which is then dropped): the 40 model-visible
//              messages, which the surface shares with the log's event data
//   pages      the log as one deflated JSON page (`zlib.deflateRawSync`, off the V8 heap): reported
//              as its byte length (the Buffer object itself is ~100 bytes of heap)
//   node --expose-gc benchmarks/memory-breakdown.mjs --snapshot <part> [sessions=500]
// instead writes a heap snapshot before and after building the sessions of one part and prints
// what they added per session, by V8 node type and constructor (e.g. `object:Hook`).
// BENCH_CORE: another build of @bosun/core, as in contenders/bosun.mjs.
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { fileURLToPath } from 'node:url'
import { deflateRawSync } from 'node:zlib'
import { storedLog } from './lib/stored-log.mjs'

const PARTS = ['parsed', 'arrays', 'session', 'inbox', 'empty', 'agent', 'surface']

async function measure(part, sessions, snapshot = false) {
  const core = await import(process.env.BENCH_CORE || '@bosun/core')
  const { contender } = await import('./contenders/bosun.mjs')
  const c = await contender('memory', { prior: 40, chunks: 10, chunkSize: 10 })
  const logJson = JSON.stringify(c.log)
  const header = { id: 'idle', version: 1, createdAt: 0 }
  const parse = () => storedLog(logJson, core)
  const build = {
    parsed: parse,
    arrays: () => { const events = parse(); return [events, [...events], [...events]] },
    session: () => { const events = parse(); const session = new core.Session(header, [...events]); return [[...events], session, core.Surface.attach(session)] },
    inbox: () => { const events = parse(); const session = new core.Session(header, [...events]); return [[...events], session, core.Surface.attach(session), new core.Inbox(session)] },
    empty: () => core.createAgent({ model: { name: 'm', stream() { throw new Error('idle') } }, store: core.memoryStore(), ownsStore: true }),
    agent: () => c.idle(false),
    // Read once: an attached surface is built on its first read.
    surface: () => { const surface = core.Surface.attach(new core.Session(header, parse())); void surface.messages; return surface },
  }[part]
  for (let i = 0; i < 3; i++) await build()
  const heap = () => { global.gc(); global.gc(); return snapshot ? histogram() : process.memoryUsage().heapUsed }
  const before = heap()
  const kept = []
  for (let i = 0; i < sessions; i++) kept.push(await build())
  const after = heap()
  if (kept.length !== sessions) throw new Error('lost')
  if (snapshot) return difference(before, after, sessions)
  return { part, events: c.logEvents, bytesPerSession: (after - before) / sessions, deflated: deflateRawSync(logJson).length, json: logJson.length }
}

/** Self size and count of every (node type, name) in a heap snapshot of this process. */
function histogram() {
  const file = writeHeapSnapshot(join(tmpdir(), `bosun-memory-breakdown-${process.pid}-${Date.now()}.heapsnapshot`))
  const { snapshot: { meta }, nodes, strings } = JSON.parse(readFileSync(file, 'utf8'))
  rmSync(file)
  const fields = meta.node_fields.length
  const [type, name, size] = ['type', 'name', 'self_size'].map((field) => meta.node_fields.indexOf(field))
  const counts = new Map()
  for (let i = 0; i < nodes.length; i += fields) {
    const kind = meta.node_types[0][nodes[i + type]]
    // Strings are named by their text and closures' code by nothing useful: one row per kind.
    const label = kind.includes('string') || kind === 'code' || kind === 'number' ? kind : `${kind}:${strings[nodes[i + name]].slice(0, 50)}`
    const row = counts.get(label) ?? { count: 0, bytes: 0 }
    row.count++
    row.bytes += nodes[i + size]
    counts.set(label, row)
  }
  return counts
}

function difference(before, after, sessions) {
  const rows = []
  for (const [label, { count, bytes }] of after) {
    const old = before.get(label) ?? { count: 0, bytes: 0 }
    const perSession = (bytes - old.bytes) / sessions
    if (Math.abs(perSession) >= 16) rows.push({ label, bytes: perSession, count: (count - old.count) / sessions })
  }
  return rows.sort((a, b) => b.bytes - a.bytes)
}

const [, , first, second] = process.argv
if (first === '--snapshot') {
  const sessions = Number(process.argv[4] ?? 500)
  const rows = await measure(second, sessions, true)
  console.log(`${second}: ${sessions} sessions; bytes and objects per session by V8 node type:name (rows of 16 bytes or more)`)
  for (const { label, bytes, count } of rows.slice(0, 40)) console.log(`${bytes.toFixed(0).padStart(8)} ${count.toFixed(1).padStart(7)}  ${label}`)
  console.log(`${rows.reduce((sum, row) => sum + row.bytes, 0).toFixed(0).padStart(8)}          total of these rows`)
} else if (first === '--child') {
  process.stdout.write(JSON.stringify(await measure(second, Number(process.argv[4]))) + '\n')
} else {
  const sessions = Number(first ?? 2000)
  const rows = []
  for (const part of PARTS) {
    const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', part, String(sessions)], { encoding: 'utf8', env: process.env })
    rows.push(JSON.parse(out.trim().split('\n').pop()))
  }
  console.log(`${sessions} sessions per part, ${rows[0].events} log events each; KiB per session (and what the layer adds):`)
  let previous = 0
  for (const { part, bytesPerSession } of rows) {
    const kib = bytesPerSession / 1024
    const alone = part === 'empty' || part === 'surface'
    const added = alone ? '' : ` (+${(kib - previous).toFixed(1)})`
    console.log(`  ${part.padEnd(8)} ${kib.toFixed(1).padStart(6)}${added}`)
    if (!alone) previous = kib
  }
  console.log(`  pages    ${(rows[0].deflated / 1024).toFixed(1).padStart(6)} off-heap (the log's JSON: ${(rows[0].json / 1024).toFixed(1)} KiB of characters)`)
}
