// `pnpm test:crash --kills 2000`: the crash campaign with more kills per store than the default
// suite runs (50 per store), some of them in the middle of crash repair (tests/crash/campaign.ts).
// `--seed N` runs another campaign than the default one (seed 1). Progress goes to stderr.
// The command line is read first, like benchmarks/run.mjs's: `--help` prints the usage (exit 0),
// anything else it does not know prints it to stderr (exit 2) — either before anything is run.
import { spawnSync } from 'node:child_process'

const USAGE = `usage: node scripts/test-crash.mjs [--kills N] [--seed N] [--help]   (pnpm test:crash …)

  (no option)   the crash campaign with 1,000 kills per store (the default suite runs 50)
  --kills N     kills per store (a positive integer; the time limit grows with it, 15 s a kill)
  --seed N      another campaign than the default one, seed 1 (a failure names its seed and run)
  --help, -h    print this and exit

Anything else on the command line is refused (exit 2) before anything is run.`

/** `{ help }` (`--help` anywhere), `{ error }`, or `{ kills, seed }` (strings of positive integers) from `argv`. */
function parseArgs(argv) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true }
  const values = { kills: '1000', seed: '1' }
  const given = new Set()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    // What `pnpm test:crash -- --kills N` passes on: the separator itself means nothing here.
    if (arg === '--') continue
    const name = arg.startsWith('--') ? arg.slice(2) : undefined
    if (name === undefined || !Object.hasOwn(values, name)) return { error: `unknown argument ${JSON.stringify(arg)}` }
    if (given.has(name)) return { error: `--${name} is given twice` }
    const value = argv[++i]
    if (!/^[1-9]\d*$/.test(value ?? '')) return { error: `--${name} needs a positive integer, got ${JSON.stringify(value)}` }
    given.add(name)
    values[name] = value
  }
  return values
}

const args = parseArgs(process.argv.slice(2))
if (args.help) {
  process.stdout.write(USAGE + '\n')
  process.exit(0)
}
if (args.error) {
  process.stderr.write(`test-crash.mjs: ${args.error}\n\n${USAGE}\n`)
  process.exit(2)
}
const result = spawnSync('npx', ['vitest', 'run', 'tests/crash'], {
  stdio: 'inherit',
  env: { ...process.env, BOSUN_CRASH_KILLS: args.kills, BOSUN_CRASH_SEED: args.seed, BOSUN_CRASH_PROGRESS: '1' },
})
process.exit(result.status ?? 1)
