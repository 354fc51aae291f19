// `pnpm bench` (root) runs vitest bench, then `node run.mjs` here. Every measurement runs in its own
// child process, contenders interleaved by round (A, B, C, …, A, B, C, …); what runs at which size
// is in lib/plan.mjs, the children and rounds in lib/children.mjs + lib/measure.mjs, the markdown in
// lib/report-*.mjs. Output: results.json here (git-ignored) and the section of docs/benchmarks.md
// between `<!-- peers:start -->` and `<!-- peers:end -->` (nothing outside it).
//   node run.mjs          builds the workspace, then all seven figures: 1–3 (per turn, history,
//                         streaming), 4 (durable step), 5 (resume), 6 (memory, one round), 7
//                         (concurrency); BENCH_ROUNDS rounds (default 3): about 10 min on the 2-core
//                         development machine (9.4 min measured on 2026-11-30; BENCH_ROUNDS=2: about 7). Rewrites the whole
//                         section; keeps results.json's `long`.
//   --only peers          figures 1–3 alone: rewrites the part above the figure 4–7 regions.
//   --only durable | resume | memory | concurrency
//                         figure 4 | 5 | 6 | 7 alone: rewrites only its `<!-- peers-<name>:… -->` region.
//   --long                only the cells that take minutes each (figure 5: LangGraph at ~1,000,000
//                         events; figure 7: the AI SDK and LangGraph at 1,000 sessions); one round
//                         unless BENCH_ROUNDS is set, BENCH_LONG_TIMEOUT_S (default 1800) per child.
//                         Stored under results.json's `long` with its date; the regions of figures 5
//                         and 7 show them (rewritten now if results.json holds those figures).
//   --smoke               the same code at tiny sizes, one round; writes nothing, prints one JSON line
//                         (the data and the markdown it would write). Combines with --only / --long.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { here } from './lib/children.mjs'
import { measureConcurrency, measureDurable, measureLong, measureMemory, measurePeers, measureResume } from './lib/measure.mjs'
import { plan as planFor } from './lib/plan.mjs'
import { runMeta, withRegion, withSection } from './lib/report-common.mjs'
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

function flags(argv) {
  const smoke = argv.includes('--smoke'), long = argv.includes('--long')
  const at = argv.indexOf('--only')
  const only = at >= 0 ? argv[at + 1] : undefined
  const unknown = argv.filter((a, i) => !['--smoke', '--long', '--only'].includes(a) && i !== at + 1)
  if (unknown.length || (at >= 0 && only === undefined)) throw new Error(`run.mjs: unknown arguments ${unknown.join(' ')} (known: --smoke, --long, --only ${Object.keys(PARTS).join('|')})`)
  if (only !== undefined && !PARTS[only]) throw new Error(`--only: unknown part ${only} (known: ${Object.keys(PARTS).join(', ')})`)
  if (only && long) throw new Error('--long runs its own cells; it does not combine with --only')
  return { smoke, long, only }
}

async function main() {
  const { smoke, long, only } = flags(process.argv.slice(2))
  if (!smoke || !existsSync(join(root, 'packages/core/dist/index.js'))) execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
  const rounds = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? (long ? 1 : 3))
  const started = Date.now()
  const log = (m) => { if (!smoke) console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${m}`) }
  const env = process.env.BENCH_ROUNDS ? `BENCH_ROUNDS=${process.env.BENCH_ROUNDS} ` : ''
  const command = `${env}node benchmarks/run.mjs${only ? ` --only ${only}` : long ? ' --long' : ''}`
  const ctx = { plan: planFor({ smoke }), rounds, log, longTimeoutMs: Number(process.env.BENCH_LONG_TIMEOUT_S ?? 1800) * 1000 }
  const previous = !smoke && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : {}

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
  if (!smoke) writeFileSync(resultsPath, JSON.stringify(results, null, 2)) // before rendering: a render bug loses no measurement
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
  writeFileSync(docPath, next)
  log(`results.json written; docs/benchmarks.md updated (${only ? (only === 'peers' ? 'figures 1–3' : `peers-${only} region`) : long ? 'peers-resume and peers-concurrency regions' : 'the peers section'})`)
}

main().catch((error) => { console.error(error); process.exit(1) })
