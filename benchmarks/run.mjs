// `pnpm bench` (root) runs vitest bench, then `node run.mjs` here. Every measurement runs in its own
// child process, contenders interleaved by round (A, B, C, …, A, B, C, …); what runs at which size
// is in lib/plan.mjs, the children and rounds in lib/children.mjs + lib/measure.mjs, the markdown in
// lib/report-*.mjs. Output: results.json here (git-ignored) and the section of docs/benchmarks.md
// between `<!-- peers:start -->` and `<!-- peers:end -->` (nothing outside it).
//   node run.mjs          builds the workspace, then all seven figures: 1–3 and 3b (per turn,
//                         history, streaming, paced streaming), 4 (durable step), 5 (resume), 6
//                         (memory, one round), 7 (concurrency); BENCH_ROUNDS rounds (default 3) for
//                         Bosun and pi-agent-core, the first round only for the AI SDK and LangGraph
//                         (lib/plan.mjs: their cost dwarfs their spread). About 5 min on the quiet
//                         2-core development machine (9.6 min before issue 20 cut it). Rewrites the
//                         whole section; keeps results.json's `long`.
//   --only peers          figures 1–3 alone: rewrites the part above the figure 4–7 regions.
//   --only durable | resume | memory | concurrency
//                         figure 4 | 5 | 6 | 7 alone: rewrites only its `<!-- peers-<name>:… -->` region.
//   --long                only the cells that take minutes each (figure 5: every store at ~1,000,000
//                         events; figure 7: the AI SDK and LangGraph at 1,000 sessions); one round
//                         unless BENCH_ROUNDS is set, BENCH_LONG_TIMEOUT_S (default 1800) per child.
//                         Stored under results.json's `long` with its date; the regions of figures 5
//                         and 7 show them (rewritten now if results.json holds those figures).
//   --smoke               the same code at tiny sizes, one round; writes nothing, prints one JSON line
//                         (the data and the markdown it would write). Combines with --only / --long.
//   --quick               for development: the default sizes, ONE round (BENCH_ROUNDS overrides),
//                         writes nothing, prints the markdown it would write (all figures: ~3 min;
//                         with --only peers: ~1.5 min). One round has no spread: not for the doc.
//   --help, -h            usage, exit 0. Any other argument: usage on stderr, exit 2. Both before
//                         anything is built, measured or written.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { here } from './lib/children.mjs'
import { measureConcurrency, measureDurable, measureLong, measureMemory, measurePeers, measureResume } from './lib/measure.mjs'
import { plan as planFor } from './lib/plan.mjs'
import { lostHeadings, runMeta, withRegion, withSection } from './lib/report-common.mjs'
import { concurrencyRegion } from './lib/report-concurrency.mjs'
import { durableRegion } from './lib/report-durable.mjs'
import { memoryRegion } from './lib/report-memory.mjs'
import { peersMain } from './lib/report-peers.mjs'
import { resumeRegion } from './lib/report-resume.mjs'

const root = join(here, '..')
const resultsPath = join(here, 'results.json')
const docPath = join(root, 'docs/benchmarks.md')

// In figure order; `key` is the part's key in results.json (and in --smoke output).
const PARTS = {
  peers: { key: 'peers', measure: measurePeers },
  durable: { key: 'fig4', measure: measureDurable, render: (d) => durableRegion(d) },
  resume: { key: 'fig5', measure: measureResume, render: (d, long) => resumeRegion(d, long) },
  memory: { key: 'fig6', measure: measureMemory, render: (d) => memoryRegion(d) },
  concurrency: { key: 'fig7', measure: measureConcurrency, render: (d, long) => concurrencyRegion(d, long) },
}

const USAGE = `usage: node benchmarks/run.mjs [--only <part>] [--long] [--smoke] [--quick] [--help]

  (no option)     build the workspace, then measure figures 1–7 (about 5 min); rewrites the
                  peers section of docs/benchmarks.md and benchmarks/results.json
  --only <part>   one part, rewriting only its share of docs/benchmarks.md:
                  ${Object.keys(PARTS).join(' | ')} (peers = figures 1–3, then figures 4–7)
  --long          only the cells that take minutes each (not with --only)
  --smoke         every code path at tiny sizes, one round; writes nothing, prints one JSON line
  --quick         the default sizes, one round; writes nothing, prints the markdown (development)
  --help, -h      print this and exit

Environment: BENCH_ROUNDS (rounds, default 3; --long: 1), BENCH_LONG_TIMEOUT_S (per --long child,
default 1800). Anything else on the command line is refused (exit 2) before anything is built,
measured or written.`

/**
 * The command line, read before anything is built, measured or written: `{ help }`, `{ error }`
 * (unknown or misplaced arguments), or the run's flags.
 */
function parseArgs(argv) {
  let smoke = false, quick = false, long = false, only
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return { help: true }
    if (arg === '--smoke') smoke = true
    else if (arg === '--quick') quick = true
    else if (arg === '--long') long = true
    else if (arg === '--only' || arg.startsWith('--only=')) {
      if (only !== undefined) return { error: '--only is given twice' }
      only = arg === '--only' ? argv[++i] : arg.slice('--only='.length)
      if (only === undefined || only === '') return { error: '--only needs a part' }
      if (!Object.hasOwn(PARTS, only)) return { error: `--only: unknown part "${only}"` }
    } else return { error: `unknown argument "${arg}"` }
  }
  if (only && long) return { error: '--long runs its own cells; it does not combine with --only' }
  if (quick && (smoke || long)) return { error: '--quick does not combine with --smoke or --long' }
  return { smoke, quick, long, only }
}

async function main(args) {
  const { smoke, quick, long, only } = args
  if (!smoke || !existsSync(join(root, 'packages/core/dist/index.js'))) execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  const rounds = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? (long || quick ? 1 : 3))
  const started = Date.now()
  const log = (m) => { if (!smoke) console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${m}`) }
  const env = process.env.BENCH_ROUNDS ? `BENCH_ROUNDS=${process.env.BENCH_ROUNDS} ` : ''
  const command = `${env}node benchmarks/run.mjs${only ? ` --only ${only}` : long ? ' --long' : ''}`
  const ctx = { plan: planFor({ smoke }), rounds, log, longTimeoutMs: Number(process.env.BENCH_LONG_TIMEOUT_S ?? 1800) * 1000 }
  const previous = !smoke && !quick && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {}

  // Measure: the --long cells, or one part, or all of them.
  const data = {}
  const names = long ? (smoke ? ['resume', 'concurrency'] : []) : only ? [only] : Object.keys(PARTS)
  if (long) {
    const t0 = Date.now()
    data.long = await measureLong(ctx)
    data.long.run = runMeta({ command, rounds, ms: Date.now() - t0 })
  }
  for (const name of names) {
    const t0 = Date.now()
    const d = await PARTS[name].measure(ctx)
    d.run = runMeta({ command: long ? 'node benchmarks/run.mjs --smoke' : command, rounds: name === 'memory' ? 1 : rounds, ms: Date.now() - t0 })
    data[PARTS[name].key] = d
  }
  const total = !only && !long ? { command, seconds: Math.round((Date.now() - started) / 1000) } : undefined
  log(`measured: ${Object.entries(data).map(([k, d]) => `${k} ${d.run.seconds} s`).join(', ')}`)

  // The one-file run.mjs stored figures 1–3 at the top level; they now live under `peers`.
  for (const key of ['fig1', 'fig2', 'fig3', 'streamConfigs']) delete previous[key]
  const results = smoke ? data : !only && !long ? { ...data, long: previous.long } : { ...previous, ...data }
  if (!smoke && !quick) writeFileSync(resultsPath, JSON.stringify(results, null, 2)) // before rendering: a render bug loses no measurement
  // Render: the whole section, or the part that was measured (--long: the regions it appears in).
  const longData = results.long
  const doc = readFileSync(docPath, 'utf8') // read now, not at the start: edits made during the run are kept
  let next = doc
  if (!only && !long) {
    const regions = Object.fromEntries(Object.entries(PARTS).filter(([, p]) => p.render).map(([name, p]) => [name, p.render(results[p.key], longData)]))
    next = withSection(doc, peersMain(results.peers, total), regions)
  } else if (only === 'peers') next = withSection(doc, peersMain(results.peers), {})
  else {
    for (const name of long ? ['resume', 'concurrency'] : [only]) {
      const d = results[PARTS[name].key]
      if (d?.run) next = withRegion(next, name, PARTS[name].render(d, longData))
      else log(`${name}: no ${PARTS[name].key} of this format in results.json; its region shows the --long cells after the next full run`)
    }
  }
  if (smoke) { process.stdout.write(JSON.stringify({ ...data, markdown: next }) + '\n'); return }
  if (quick) { process.stdout.write(next.slice(next.indexOf('<!-- peers:start -->'), next.indexOf('<!-- peers:end -->')) + '\n'); return }
  const lost = lostHeadings(doc, next)
  if (lost.length > 0) {
    console.error(`Not rewriting docs/benchmarks.md: it would delete ${lost.map((h) => JSON.stringify(h)).join(', ')}, which sit${lost.length === 1 ? 's' : ''} between <!-- peers:start --> and <!-- peers:end -->, the region this script generates. Move ${lost.length === 1 ? 'that section' : 'those sections'} out of the region and run again; the measurements are kept in benchmarks/results.json.`)
    process.exit(1)
  }
  writeFileSync(docPath, next)
  log(`results.json written; docs/benchmarks.md updated (${only ? (only === 'peers' ? 'figures 1–3' : `peers-${only} region`) : long ? 'peers-resume and peers-concurrency regions' : 'the peers section'})`)
}

// The command line first: help and mistakes change nothing (no build, no measurement, no write).
const args = parseArgs(process.argv.slice(2))
if (args.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
if (args.error) {
  process.stderr.write(`run.mjs: ${args.error}\n\n${USAGE}\n`)
  process.exit(2)
}
main(args).catch((error) => { console.error(error); process.exit(1) })
