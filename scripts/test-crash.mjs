// `pnpm test:crash --kills 2000`: the crash campaign with more kills per store than the default
// suite runs (100 per store), some of them in the middle of crash repair (tests/crash/campaign.ts).
// `--seed N` runs another campaign than the default one (seed 1). Progress goes to stderr.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
/** The value after `--name`, or `fallback`; exits 2 (usage) unless it is a positive integer. */
function positive(name, fallback) {
  const at = args.indexOf(`--${name}`)
  const value = at >= 0 ? args[at + 1] : fallback
  if (!/^[1-9]\d*$/.test(value ?? '')) {
    console.error(`Usage: pnpm test:crash [--kills N] [--seed N]   (positive integers, got --${name} ${JSON.stringify(value)})`)
    process.exit(2)
  }
  return value
}
const kills = positive('kills', '1000')
const seed = positive('seed', '1')
const result = spawnSync('npx', ['vitest', 'run', 'tests/crash'], {
  stdio: 'inherit',
  env: { ...process.env, BOSUN_CRASH_KILLS: kills, BOSUN_CRASH_SEED: seed, BOSUN_CRASH_PROGRESS: '1' },
})
process.exit(result.status ?? 1)
