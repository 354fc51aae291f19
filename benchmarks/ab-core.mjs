// Before/after of @bosun/core's turn, without touching the working tree:
//   node benchmarks/ab-core.mjs <git-ref> [rounds=5] [--callgrind] [--cachesim] [--only=turn,fig1,fig3,fig3b,fig7] [--after=<git-ref>]
// Builds packages/core as it was at <git-ref> into a temporary directory and loads it through
// BENCH_CORE (contenders/bosun.mjs); "after" is this tree's built dist (run
// `npx tsc -b tsconfig.build.json` first). Round by round, in separate processes, in the order
// pi-agent-core, before, after:
//   - turn-cost.mjs: one session (100 prior messages, 200 warm-up turns), 2,000 memory-store
//     turns between two full collections: wall and CPU ms per turn, bytes allocated and retained
//     per turn, GC pause per turn and its share of the wall time;
//   - figure 1's turn (child.mjs: a fresh session of 100 prior messages per sample);
//   - figure 3's 1,000 × 10-character answer (µs per delta = ms per turn);
//   - figure 3b's paced answer (1,000 × 10 characters, a setImmediate before each delta):
//     deltas/s and CPU µs per delta;
//   - figure 7's 1,000 sessions × 10 turns (turns/s).
// Then, once per build, promises created per turn (async_hooks), and with --callgrind
// instructions per turn: `valgrind --tool=callgrind` of turn-cost.mjs in count mode (node
// --single-threaded --predictable: GC and compilation on the main thread, counted, and no
// time-based heuristics, so repeatable on a loaded machine) at 200 and
// 1,200 turns, the difference ÷ 1,000. With --cachesim, once per build, figure 7's child (1,000
// sessions) under `valgrind --tool=cachegrind --cache-sim=yes` at 2 and 6 turns a session, the
// difference ÷ 4,000 turns: instructions, D1 misses and misses of a simulated 1 MiB last level
// (this machine's L2 per core; its 32 MiB L3 holds the whole heap) per turn — the machine has no
// hardware counters, and at 1,000 sessions the commit path was bound by cache misses
// (docs/benchmarks.md section 6, "Third pass on goal 1"). ~3 minutes per build and length.
// Prints one line per measure: median over rounds (min–max).
// --only: these cells alone (and no promise count), e.g. `--only=fig3b` while working on one figure.
// --after: "after" is that ref's core, built like "before", instead of this tree's dist (which
// holds whatever is uncommitted in packages/core, other people's work included).
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { abArgs } from './lib/ab-args.mjs'
import { cachegrindTotals, dataMisses } from './lib/cachegrind.mjs'
import { median } from './lib/children.mjs'

const argv = process.argv.slice(2)
const USAGE = 'usage: node benchmarks/ab-core.mjs <git-ref> [rounds=5] [--callgrind] [--cachesim] [--only=turn,fig1,fig3,fig3b,fig7] [--after=<git-ref>]'
const CELLS = ['turn', 'fig1', 'fig3', 'fig3b', 'fig7']
const callgrind = argv.includes('--callgrind')
const cachesim = argv.includes('--cachesim')
const onlyArg = argv.find((a) => a.startsWith('--only='))
const afterArg = argv.find((a) => a.startsWith('--after='))
const afterRef = afterArg?.slice('--after='.length)
const only = onlyArg?.slice('--only='.length).split(',')
if ((only && (only.length === 0 || only.some((name) => !CELLS.includes(name)))) || afterRef === '') {
  console.error(USAGE)
  process.exit(2)
}
const { ref, rounds } = abArgs(USAGE, argv.filter((a) => a !== '--callgrind' && a !== '--cachesim' && a !== onlyArg && a !== afterArg))
const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')

function buildOld(parent, gitRef = ref) {
  const work = mkdtempSync(join(parent, 'build-'))
  const tar = execFileSync('git', ['archive', gitRef, 'tsconfig.base.json', 'packages/core'], { cwd: root, maxBuffer: 1 << 28 })
  execFileSync('tar', ['-x', '-C', work], { input: tar })
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'))
  symlinkSync(join(root, 'packages/core/node_modules'), join(work, 'packages/core/node_modules'))
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(work, 'packages/core/tsconfig.json'), '--noCheck'], { stdio: 'inherit' })
  return join(work, 'packages/core/dist/index.js')
}

function run(args, env = {}, command = process.execPath) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: here, maxBuffer: 1 << 26, timeout: 900_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error) { reject(new Error(`${args.join(' ')}: ${error.message}\n${stderr}`)); return }
      resolve({ stdout, stderr })
    })
  })
}

async function child(script, config, env, flags = []) {
  const { stdout } = await run([...flags, join(here, script), JSON.stringify(config)], env)
  const result = JSON.parse(stdout.trim().split('\n').pop())
  if (!result.ok) throw new Error(`${script} ${JSON.stringify(config)}: ${result.reason}`)
  return result
}

async function instructions(contender, turns, env) {
  const out = join(work, `cg-${contender}-${turns}-${Date.now()}`)
  // --predictable: without it V8's time-based heuristics (GC scheduling, tier-up) made the same
  // build's count move by 3–7% on the loaded machine; with it, by under 2% (docs/benchmarks.md §6).
  await run(['--tool=callgrind', `--callgrind-out-file=${out}`, '--smc-check=all-non-file', process.execPath, '--single-threaded', '--predictable',
    join(here, 'turn-cost.mjs'), JSON.stringify({ contender, turns, mode: 'count' })], env, 'valgrind')
  const totals = readFileSync(out, 'utf8').match(/^totals: (\d+)/m) ?? readFileSync(out, 'utf8').match(/^summary: (\d+)/m)
  return Number(totals[1])
}

/** Figure 7's child (1,000 sessions × `turns`) under cachegrind: its totals (see the header). */
async function cacheCounts(contender, turns, env) {
  const out = join(work, `cachegrind-${contender}-${turns}-${Date.now()}`)
  await run(['--tool=cachegrind', '--cache-sim=yes', '--LL=1048576,16,64', `--cachegrind-out-file=${out}`, '--smc-check=all-non-file', process.execPath,
    '--single-threaded', '--predictable', join(here, 'concurrency-child.mjs'), JSON.stringify({ contender, variant: 'memory', sessions: 1000, turns, prior: 0 })], env, 'valgrind')
  return cachegrindTotals(readFileSync(out, 'utf8'))
}

const work = mkdtempSync(join(tmpdir(), 'bosun-ab-core-'))
try {
  const builds = [['pi-agent-core', 'pi', {}], [`before (${ref})`, 'bosun', { BENCH_CORE: buildOld(work) }], afterRef ? [`after (${afterRef})`, 'bosun', { BENCH_CORE: buildOld(work, afterRef) }] : ['after (working tree)', 'bosun', {}]]
  const cells = [
    { id: 'turn', name: 'one session, 2,000 turns', script: 'turn-cost.mjs', flags: ['--expose-gc'], config: { turns: 2000 }, measures: {
      'wall ms / turn': (r) => r.wallMsPerTurn, 'CPU ms / turn': (r) => r.cpuMsPerTurn, 'allocated B / turn': (r) => r.allocatedBytesPerTurn,
      'retained B / turn': (r) => r.retainedBytesPerTurn, 'GC ms / turn': (r) => r.gcMsPerTurn, 'GC share of wall': (r) => r.gcShare,
    } },
    { id: 'fig1', name: 'figure 1 (fresh session, 100 prior messages)', script: 'child.mjs', config: { variant: 'memory', prior: 100, chunks: 10, chunkSize: 10, samples: 40, warmup: 10 }, measures: {
      'wall ms / turn': (r) => median(r.wallMs), 'CPU ms / turn': (r) => median(r.cpuMs),
    } },
    { id: 'fig3', name: 'figure 3 (1,000 × 10 ch)', script: 'child.mjs', config: { variant: 'memory', prior: 10, chunks: 1000, chunkSize: 10, samples: 20, warmup: 5 }, measures: {
      'µs / delta': (r) => median(r.wallMs),
    } },
    { id: 'fig3b', name: 'figure 3b (1,000 × 10 ch, setImmediate before each delta)', script: 'child.mjs', config: { variant: 'memory', prior: 10, chunks: 1000, chunkSize: 10, pace: 'immediate', samples: 20, warmup: 5 }, measures: {
      // As figure 3b reports them: deltas/s from the median turn, CPU per delta from the mean.
      'deltas/s': (r) => 1000 / (median(r.wallMs) / 1000), 'CPU µs / delta': (r) => r.cpuMs.reduce((a, b) => a + b, 0) / r.cpuMs.length,
    } },
    { id: 'fig7', name: 'figure 7 (1,000 sessions × 10 turns)', script: 'concurrency-child.mjs', config: { variant: 'memory', sessions: 1000, turns: 10, prior: 0 }, measures: {
      'turns/s': (r) => r.turns / (r.totalMs / 1000), 'CPU ms / turn': (r) => r.cpuMs / r.turns, // r.turns: all sessions' turns
    } },
  ]
  for (const cell of cells) {
    if (only && !only.includes(cell.id)) continue
    const values = new Map()
    for (let round = 0; round < rounds; round++) {
      for (const [label, contender, env] of builds) {
        const result = await child(cell.script, { contender, ...cell.config }, env, cell.flags)
        for (const [measure, read] of Object.entries(cell.measures)) {
          const key = `${measure}\u0000${label}`
          if (!values.has(key)) values.set(key, [])
          values.get(key).push(read(result))
        }
      }
    }
    for (const measure of Object.keys(cell.measures)) {
      const show = (xs) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`
      const parts = builds.map(([label]) => `${label} ${show(values.get(`${measure}\u0000${label}`))}`)
      const before = median(values.get(`${measure}\u0000${builds[1][0]}`))
      const after = median(values.get(`${measure}\u0000${builds[2][0]}`))
      console.log(`${cell.name}, ${measure}: ${parts.join('; ')}; after ÷ before ${(after / before).toFixed(2)} (${rounds} rounds)`)
    }
  }
  for (const [label, contender, env] of only ? [] : builds) {
    const { promisesPerTurn } = await child('turn-cost.mjs', { contender, turns: 500, promises: true }, env)
    console.log(`promises / turn, ${label}: ${promisesPerTurn}`)
  }
  if (callgrind) {
    for (const [label, contender, env] of builds) {
      const [low, high] = [await instructions(contender, 200, env), await instructions(contender, 1200, env)]
      console.log(`instructions / turn (callgrind), ${label}: ${Math.round((high - low) / 1000).toLocaleString('en-US')}`)
    }
  }
  if (cachesim) {
    for (const [label, contender, env] of builds) {
      const [low, high] = [await cacheCounts(contender, 2, env), await cacheCounts(contender, 6, env)]
      const perTurn = (read) => Math.round((read(high) - read(low)) / 4000).toLocaleString('en-US')
      console.log(`figure 7 under cachegrind, ${label}, per turn: instructions ${perTurn((t) => t.Ir)}, D1 misses ${perTurn((t) => dataMisses(t).d1)}, 1 MiB last-level misses ${perTurn((t) => dataMisses(t).ll)}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}

function fmt(x) {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 1 ? x.toFixed(2) : x.toPrecision(3)
}
