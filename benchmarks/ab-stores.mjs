// Before/after of the durable stores, without touching the working tree:
//   node benchmarks/ab-stores.mjs <git-ref> [rounds=5]
// Builds @bosun/plugin-store-jsonl and @bosun/plugin-store-sqlite as they were at <git-ref> into a
// temporary directory (against this tree's built @bosun/core: only the stores differ), then runs,
// in child processes, round by round, every cell with the store of <git-ref> and with this tree's,
// in alternating order (the contender loads the other build through BENCH_STORE_JSONL /
// BENCH_STORE_SQLITE):
//   - durable acks (acks-child.mjs): 1, 8 and 64 sessions in one store, each appending one event
//     and awaiting flush() in a closed loop, acks/s;
//   - figure 4's durable step (durable-child.mjs, 40 prior messages, 15 turns): wall per step and
//     bytes written per step (the SQLite WAL frames included);
//   - reopening a stored session of 100,000 events (resume-child.mjs, SQLite: each build reads the
//     database it wrote itself): store.open and createAgent, 3 reopens per child;
//   - figure 4b (concurrency-child.mjs, one shared store): 1, 8 and 64 sessions at once, turns/s,
//     with the memory store in the same round as the reference.
// Run `npx tsc -b tsconfig.build.json` first (this tree's dist is what "after" measures). Prints
// one line per cell: median over rounds (min–max), and after ÷ before. BENCH_AB_STORES=jsonl (or
// sqlite) keeps only that store's cells (and the memory store's reference), for a shorter run.
import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { abArgs } from './lib/ab-args.mjs'
import { median } from './lib/children.mjs'

const { ref, rounds } = abArgs('usage: node benchmarks/ab-stores.mjs <git-ref> [rounds=5]')
const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
/** Events of the stored session that the reopen cell opens (figure 5's middle size). */
const OPEN_EVENTS = 100_000
const STORES = { jsonl: 'packages/plugins/store-jsonl', sqlite: 'packages/plugins/store-sqlite' }
const only = process.env.BENCH_AB_STORES
if (only !== undefined && !(only in STORES)) {
  console.error(`BENCH_AB_STORES must be one of ${Object.keys(STORES).join(', ')}, got ${only}`)
  process.exit(2)
}

/** The stores of `ref`, built into `work`; returns the entry file of each. */
function buildOld(work) {
  const tar = execFileSync('git', ['archive', ref, 'tsconfig.base.json', ...Object.values(STORES)], { cwd: root, maxBuffer: 1 << 28 })
  execFileSync('tar', ['-x', '-C', work], { input: tar })
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'))
  mkdirSync(join(work, 'packages'), { recursive: true })
  symlinkSync(join(root, 'packages/core'), join(work, 'packages/core')) // the project reference: this tree's core
  const entries = {}
  for (const [name, pkg] of Object.entries(STORES)) {
    symlinkSync(join(root, pkg, 'node_modules'), join(work, pkg, 'node_modules'))
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(work, pkg, 'tsconfig.json'), '--noCheck'], { stdio: 'inherit' })
    entries[name] = join(work, pkg, 'dist/index.js')
  }
  return entries
}

function child(script, config, env) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(here, script), JSON.stringify(config)], { cwd: here, maxBuffer: 1 << 26, timeout: 600_000, env: { ...process.env, ...env } }, (error, stdout) => {
      if (error) { reject(error); return }
      const result = JSON.parse(stdout.trim().split('\n').pop())
      if (!result.ok) reject(new Error(`${script} ${JSON.stringify(config)}: ${result.reason}`))
      else resolve(result)
    })
  })
}

const work = mkdtempSync(join(tmpdir(), 'bosun-ab-stores-'))
try {
  const old = buildOld(work)
  const builds = { before: { BENCH_STORE_JSONL: old.jsonl, BENCH_STORE_SQLITE: old.sqlite }, after: {} }
  const cells = []
  for (const sessions of [1, 8, 64]) {
    for (const variant of ['jsonl', 'sqlite']) {
      cells.push({
        name: `acks, ${sessions} sessions, one store, ${variant}`, variant, script: 'acks-child.mjs', config: { variant, sessions, ms: 1000 },
        measures: { 'acks/s': (r) => r.acksPerS },
      })
    }
  }
  for (const variant of ['jsonl', 'sqlite']) {
    cells.push({
      name: `durable step, ${variant}, 40 prior messages`, variant, script: 'durable-child.mjs', config: { contender: 'bosun', variant, prior: 40, samples: 15 },
      measures: { 'wall ms / step': (r) => median(r.wallMs) / 2, 'written B / step': (r) => median(r.wchar) / 2, 'file growth B / step': (r) => median(r.growth) / 2 },
    })
  }
  // Reopening a stored session (resume-child.mjs, figure 5's child): written once by each build.
  for (const which of only === 'jsonl' ? [] : ['before', 'after']) {
    await child('resume-child.mjs', { contender: 'bosun', variant: 'sqlite', events: OPEN_EVENTS, reps: 1, dir: join(work, `open-${which}`), phase: 'prepare' }, builds[which])
  }
  cells.push({
    name: `reopen ${OPEN_EVENTS.toLocaleString('en')} events, sqlite`, variant: 'sqlite', script: 'resume-child.mjs',
    config: (which) => ({ contender: 'bosun', variant: 'sqlite', events: OPEN_EVENTS, reps: 3, dir: join(work, `open-${which}`), phase: 'measure' }),
    measures: { 'store.open ms': (r) => r.openMs, 'createAgent ms': (r) => r.createAgentMs },
  })
  for (const [sessions, turns] of [[1, 200], [8, 40], [64, 10]]) {
    for (const variant of ['memory', 'jsonl', 'sqlite']) {
      cells.push({
        name: `${sessions} sessions × ${turns} turns, one store, ${variant}`, variant, script: 'concurrency-child.mjs',
        config: { contender: 'bosun', variant, sessions, turns, sharedStore: true },
        measures: { 'turns/s': (r) => r.turns / (r.totalMs / 1000), 'CPU ms / turn': (r) => r.cpuMs / r.turns },
      })
    }
  }
  if (only !== undefined) {
    cells.splice(0, cells.length, ...cells.filter((cell) => cell.variant === only || cell.variant === 'memory'))
  }
  const values = new Map(cells.map((cell) => [cell, { before: [], after: [] }]))
  for (let round = 1; round <= rounds; round++) {
    for (const cell of cells) {
      // The memory store is the same in both builds: measured once per round, as the reference.
      // The builds' order alternates by round (ABBA…): on a machine whose load climbs or falls
      // through a run, a fixed order would put the same build always on the later side.
      for (const which of cell.variant === 'memory' ? ['after'] : round % 2 === 1 ? ['before', 'after'] : ['after', 'before']) {
        process.stderr.write(`round ${round}/${rounds}: ${cell.name}, ${which}\n`)
        const config = typeof cell.config === 'function' ? cell.config(which) : cell.config
        values.get(cell)[which].push(await child(cell.script, config, builds[which]))
      }
    }
  }
  const show = (xs) => `${median(xs).toFixed(xs.some((x) => x >= 100) ? 0 : 3)} (${Math.min(...xs).toFixed(xs.some((x) => x >= 100) ? 0 : 3)}–${Math.max(...xs).toFixed(xs.some((x) => x >= 100) ? 0 : 3)})`
  console.log(`node benchmarks/ab-stores.mjs ${ref} ${rounds}: median over ${rounds} interleaved rounds (min–max)`)
  const pct = (xs) => `${(median(xs) * 100).toFixed(0)}% (${(Math.min(...xs) * 100).toFixed(0)}–${(Math.max(...xs) * 100).toFixed(0)}%)`
  for (const cell of cells) {
    const { before, after } = values.get(cell)
    const memory = cell.config.sessions === undefined ? undefined : cells.find((c) => c.variant === 'memory' && c.config.sessions === cell.config.sessions)
    for (const [label, get] of Object.entries(cell.measures)) {
      const a = after.map(get)
      if (cell.variant === 'memory') { console.log(`${cell.name}: ${label} ${show(a)}`); continue }
      const b = before.map(get)
      let line = `${cell.name}: ${label} ${ref} ${show(b)} → working tree ${show(a)}; after ÷ before ${(median(a) / median(b)).toFixed(2)}`
      if (memory && label === 'turns/s') {
        // Each round against the memory store of the same round.
        const m = values.get(memory).after.map(get)
        line += `; of memory: before ${pct(b.map((x, i) => x / m[i]))}, after ${pct(a.map((x, i) => x / m[i]))}`
      }
      console.log(line)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
