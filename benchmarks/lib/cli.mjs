// run.mjs's command line: the usage, the parser, and what a run measures and renders. Kept apart
// from run.mjs (which runs on import) so that cli.test.ts can check every selection without
// measuring anything.

/** The parts of the peers section in figure order, with their key in results.json (and in --smoke output). */
export const PART_KEYS = { peers: 'peers', durable: 'fig4', resume: 'fig5', memory: 'fig6', concurrency: 'fig7' }
export const PART_NAMES = Object.keys(PART_KEYS)
/** The regions `--long` renders: its cells sit in figures 5 and 7. */
export const LONG_REGIONS = ['resume', 'concurrency']

export const USAGE = `usage: node benchmarks/run.mjs [--only <part>] [--long] [--render] [--results <file>] [--smoke] [--quick] [--help]

  (no option)       build the workspace, then measure figures 1–7 (about 5 min); rewrites the
                    peers section of docs/benchmarks.md and benchmarks/results.json
  --only <part>     one part, rewriting only its share of docs/benchmarks.md:
                    ${PART_NAMES.join(' | ')} (peers = figures 1–3, then figures 4–7)
  --long            only the cells that take minutes each (not with --only)
  --render          measure nothing: rewrite docs/benchmarks.md from the results file (after a
                    change to lib/report-*.mjs); with --only, its share; with --long, the regions
                    of figures 5 and 7
  --results <file>  the results file to read and write instead of benchmarks/results.json; with
                    --smoke it is read (e.g. the regions --long renders) and never written
  --smoke           every code path at tiny sizes, one round; writes nothing, prints one JSON line
  --quick           the default sizes, one round; writes nothing, prints the markdown (development)
  --help, -h        print this and exit

Environment: BENCH_ROUNDS (rounds, default 3; --long: 1), BENCH_LONG_TIMEOUT_S (per --long child,
default 1800). Anything else on the command line is refused (exit 2) before anything is built,
measured or written.`

/** Reads `--name value` or `--name=value` at argv[i]: { value, next } (next: the index it ended at), or undefined if not that option. */
function valued(argv, i, name) {
  const arg = argv[i]
  if (arg === name) return { value: argv[i + 1], next: i + 1 }
  if (arg.startsWith(`${name}=`)) return { value: arg.slice(name.length + 1), next: i }
  return undefined
}

/**
 * The command line, read before anything is built, measured or written: `{ help }`, `{ error }`
 * (unknown or misplaced arguments), or the run's flags.
 */
export function parseArgs(argv) {
  let smoke = false, quick = false, long = false, render = false, only, results
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') return { help: true }
    const o = valued(argv, i, '--only'), r = valued(argv, i, '--results')
    if (arg === '--smoke') smoke = true
    else if (arg === '--quick') quick = true
    else if (arg === '--long') long = true
    else if (arg === '--render') render = true
    else if (o) {
      if (only !== undefined) return { error: '--only is given twice' }
      if (o.value === undefined || o.value === '') return { error: '--only needs a part' }
      if (!Object.hasOwn(PART_KEYS, o.value)) return { error: `--only: unknown part "${o.value}"` }
      only = o.value
      i = o.next
    } else if (r) {
      if (results !== undefined) return { error: '--results is given twice' }
      if (r.value === undefined || r.value === '') return { error: '--results needs a file' }
      results = r.value
      i = r.next
    } else return { error: `unknown argument "${arg}"` }
  }
  if (only && long) return { error: '--long runs its own cells; it does not combine with --only' }
  if (quick && (smoke || long || render)) return { error: '--quick does not combine with --smoke, --long or --render' }
  if (quick && results !== undefined) return { error: '--quick reads and writes no results file; --results does not combine with it' }
  return { smoke, quick, long, render, only, results }
}

/**
 * What a run does: `measure` (the parts it measures), `measureLong` (the --long cells), and what it
 * renders — `section` (the whole peers section), or `regions` (the regions of figures 4–7 it
 * rewrites) and `main` (figures 1–3). `--render` renders the same share as the run it stands for,
 * measuring nothing.
 */
export function selection({ only, long, render }) {
  const share = long
    ? { section: false, main: false, regions: LONG_REGIONS }
    : only
      ? { section: false, main: only === 'peers', regions: only === 'peers' ? [] : [only] }
      : { section: true, main: true, regions: PART_NAMES.filter((name) => name !== 'peers') }
  const measure = render || long ? [] : only ? [only] : PART_NAMES
  return { measure, measureLong: long && !render, ...share }
}

/** The command a measured figure records (its "Command:" line in the doc). */
export function commandOf({ only, long }, env = {}) {
  const rounds = env.BENCH_ROUNDS ? `BENCH_ROUNDS=${env.BENCH_ROUNDS} ` : ''
  return `${rounds}node benchmarks/run.mjs${only ? ` --only ${only}` : long ? ' --long' : ''}`
}
