// `pnpm bench` (root) runs vitest bench, then `node run.mjs` here. Every measurement runs in its own
// child process, contenders interleaved by round (A, B, C, …, A, B, C, …); what runs at which size
// is in lib/plan.mjs, the children and rounds in lib/children.mjs + lib/measure.mjs, the markdown in
// lib/report-*.mjs, the command line in lib/cli.mjs. Output: results.json here (git-ignored) and the
// section of docs/benchmarks.md between `<!-- peers:start -->` and `<!-- peers:end -->` (nothing
// outside it).
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
//   --render              measures and builds nothing: rewrites the same share of the doc as the run
//                         it is combined with (none: the whole section; --only: its part; --long: the
//                         regions of figures 5 and 7) from results.json, e.g. after a change to
//                         lib/report-*.mjs. A figure the file lacks: exit 1, naming the command.
//   --results <file>      read (and, when measuring for the doc, write) <file>, not results.json.
//   --smoke               the same code at tiny sizes, one round; writes nothing, prints one JSON line
//                         (the data and the markdown it would write). Combines with --only / --long /
//                         --render; reads a results file only when --results names one.
//   --quick               for development: the default sizes, ONE round (BENCH_ROUNDS overrides),
//                         writes nothing, prints the markdown it would write (all figures: ~3 min;
//                         with --only peers: ~1.5 min). One round has no spread: not for the doc.
//   --help, -h            usage, exit 0. Any other argument: usage on stderr, exit 2. Both before
//                         anything is built, measured or written.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { here } from './lib/children.mjs'
import { PART_KEYS, USAGE, commandOf, parseArgs, selection } from './lib/cli.mjs'
import { measureConcurrency, measureDurable, measureLong, measureMemory, measurePeers, measureResume } from './lib/measure.mjs'
import { plan as planFor } from './lib/plan.mjs'
import { lostHeadings, runMeta, versions, withRegion, withSection } from './lib/report-common.mjs'
import { concurrencyRegion } from './lib/report-concurrency.mjs'
import { durableRegion } from './lib/report-durable.mjs'
import { memoryRegion } from './lib/report-memory.mjs'
import { peersMain } from './lib/report-peers.mjs'
import { resumeRegion } from './lib/report-resume.mjs'

const root = join(here, '..')
const docPath = join(root, 'docs/benchmarks.md')

// In figure order (lib/cli.mjs: PART_KEYS); figures 4–7 each render their own region.
const MEASURE = { peers: measurePeers, durable: measureDurable, resume: measureResume, memory: measureMemory, concurrency: measureConcurrency }
const RENDER = { durable: (d) => durableRegion(d), resume: (d, long) => resumeRegion(d, long), memory: (d) => memoryRegion(d), concurrency: (d, long) => concurrencyRegion(d, long) }
const FIGURE = { peers: 'figures 1–3', durable: 'figure 4', resume: 'figure 5', memory: 'figure 6', concurrency: 'figure 7' }

/** Stops the run with a message that says what to do; nothing has been written. */
function refuse(message) {
  process.stderr.write(`run.mjs: ${message}\n`)
  process.exit(1)
}

async function main(args) {
  const { smoke, quick, long, only, render } = args
  const sel = selection(args)
  const resultsPath = args.results ? resolve(args.results) : join(here, 'results.json')
  const shown = args.results ?? 'benchmarks/results.json'
  const measuring = sel.measure.length > 0 || sel.measureLong
  if (measuring && (!smoke || !existsSync(join(root, 'packages/core/dist/index.js')))) execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  const rounds = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? (long || quick ? 1 : 3))
  const started = Date.now()
  const log = (m) => { if (!smoke) console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${m}`) }
  const command = commandOf(args, process.env)
  const ctx = { plan: planFor({ smoke }), rounds, log, longTimeoutMs: Number(process.env.BENCH_LONG_TIMEOUT_S ?? 1800) * 1000 }
  // A smoke run's tiny figures must not mix with real ones: it reads a results file only when named.
  const reads = render || (!quick && (!smoke || args.results !== undefined))
  if (render && !existsSync(resultsPath)) refuse(`--render: there is no ${shown}; measure first (node benchmarks/run.mjs, or --only <part>).`)
  const previous = reads && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {}
  // The one-file run.mjs stored figures 1–3 at the top level; they now live under `peers`.
  for (const key of ['fig1', 'fig2', 'fig3', 'streamConfigs']) delete previous[key]
  if (render) {
    const missing = [...(sel.main ? ['peers'] : []), ...sel.regions].filter((name) => !previous[PART_KEYS[name]]?.run)
    // A full re-render keeps a region the file lacks as the doc has it; figures 1–3 and an --only part are needed.
    const needed = sel.section ? missing.filter((name) => name === 'peers') : long ? [] : missing
    if (needed.length) refuse(`--render: ${shown} holds no ${needed.map((name) => `${FIGURE[name]} (\`${PART_KEYS[name]}\`)`).join(', ')}; measure ${needed.length === 1 ? 'it' : 'them'} first: node benchmarks/run.mjs${only ? ` --only ${only}` : ''}.`)
    if (long && !previous.long?.run) refuse(`--render --long: ${shown} holds no --long cells; measure them first: node benchmarks/run.mjs --long.`)
  }

  // Measure: the --long cells, or one part, or all of them (--render: nothing).
  const data = {}
  if (sel.measureLong) {
    const t0 = Date.now()
    data.long = await measureLong(ctx)
    data.long.run = runMeta({ command, rounds, ms: Date.now() - t0 })
  }
  for (const name of sel.measure) {
    const t0 = Date.now()
    const d = await MEASURE[name](ctx)
    d.run = runMeta({ command, rounds: name === 'memory' ? 1 : rounds, ms: Date.now() - t0 })
    data[PART_KEYS[name]] = d
  }
  if (data.peers) {
    // Stored with the figures so that --render shows what was measured, not the tree it renders in.
    data.peers.versions = versions()
    if (sel.section) data.peers.total = { command, seconds: Math.round((Date.now() - started) / 1000) }
  }
  if (measuring) log(`measured: ${Object.entries(data).map(([k, d]) => `${k} ${d.run.seconds} s`).join(', ')}`)

  const results = render ? previous : sel.section ? { ...data, long: previous.long } : { ...previous, ...data }
  if (measuring && !smoke && !quick) writeFileSync(resultsPath, JSON.stringify(results, null, 2)) // before rendering: a render bug loses no measurement
  // Render: the whole section, or the part that was measured (--long: the regions it appears in).
  const longData = results.long
  const doc = readFileSync(docPath, 'utf8') // read now, not at the start: edits made during the run are kept
  const regionOf = (name) => RENDER[name](results[PART_KEYS[name]], longData)
  let next = doc
  if (sel.section) next = withSection(doc, peersMain(results.peers), Object.fromEntries(sel.regions.filter((name) => results[PART_KEYS[name]]?.run).map((name) => [name, regionOf(name)])))
  else if (sel.main) next = withSection(doc, peersMain(results.peers), {})
  else {
    for (const name of sel.regions) {
      if (results[PART_KEYS[name]]?.run) next = withRegion(next, name, regionOf(name))
      else log(`${name}: no ${PART_KEYS[name]} of this format in ${shown}; its region shows the --long cells after the next full run`)
    }
  }
  if (smoke) {
    // --render prints the figures it rendered from, as a measuring run prints what it measured.
    const keys = long ? ['long'] : [...(sel.main ? ['peers'] : []), ...sel.regions].map((name) => PART_KEYS[name])
    const printed = render ? Object.fromEntries(keys.filter((key) => results[key]).map((key) => [key, results[key]])) : data
    process.stdout.write(JSON.stringify({ ...printed, markdown: next }) + '\n')
    return
  }
  if (quick) { process.stdout.write(next.slice(next.indexOf('<!-- peers:start -->'), next.indexOf('<!-- peers:end -->')) + '\n'); return }
  const lost = lostHeadings(doc, next)
  if (lost.length > 0) {
    console.error(`Not rewriting docs/benchmarks.md: it would delete ${lost.map((h) => JSON.stringify(h)).join(', ')}, which sit${lost.length === 1 ? 's' : ''} between <!-- peers:start --> and <!-- peers:end -->, the region this script generates. Move ${lost.length === 1 ? 'that section' : 'those sections'} out of the region and run again; the measurements are kept in ${shown}.`)
    process.exit(1)
  }
  writeFileSync(docPath, next)
  const share = only ? (only === 'peers' ? 'figures 1–3' : `peers-${only} region`) : long ? 'peers-resume and peers-concurrency regions' : 'the peers section'
  if (render) console.error(`docs/benchmarks.md: ${share} rendered from ${shown} (nothing measured)`)
  else log(`${shown} written; docs/benchmarks.md updated (${share})`)
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
