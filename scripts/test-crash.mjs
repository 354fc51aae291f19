// `pnpm test:crash --kills 2000`: the crash campaign with more kills per store than the default
// suite runs (100 per store). Progress goes to stderr.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
const at = args.indexOf('--kills')
const kills = at >= 0 ? args[at + 1] : '1000'
if (!/^[1-9]\d*$/.test(kills ?? '')) {
  console.error(`Usage: pnpm test:crash [--kills N]   (N a positive integer, got ${JSON.stringify(kills)})`)
  process.exit(2)
}
const result = spawnSync('npx', ['vitest', 'run', 'tests/crash'], {
  stdio: 'inherit',
  env: { ...process.env, BOSUN_CRASH_KILLS: kills, BOSUN_CRASH_PROGRESS: '1' },
})
process.exit(result.status ?? 1)
