// `node tests/scale-out/run.mjs --sessions 300 [--lease-ttl-ms 4000]`: the scale-out campaign with more
// sessions than the default suite runs (30 on 3 hosts); progress and the report (failover time
// included: docs/benchmarks.md) go to stderr.
import { spawnSync } from 'node:child_process'

const USAGE = `usage: node tests/scale-out/run.mjs [--sessions N] [--lease-ttl-ms MS]

  --sessions N        sessions over the three hosts (default 300; the default suite runs 30)
  --lease-ttl-ms MS   the hosts' lease TTL, which bounds the failover time (default 4000)
  --help              this text; nothing is run`

const args = process.argv.slice(2)
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE)
  process.exit(0)
}
// Every argument is an option followed by its value: anything else is refused before a long run starts.
for (let i = 0; i < args.length; i += 2) {
  if (args[i] !== '--sessions' && args[i] !== '--lease-ttl-ms') {
    console.error(`Unknown argument ${JSON.stringify(args[i])}.\n\n${USAGE}`)
    process.exit(2)
  }
}
const at = args.indexOf('--sessions')
const sessions = at >= 0 ? args[at + 1] : '300'
if (!/^[1-9]\d*$/.test(sessions ?? '')) {
  console.error(`Usage: node tests/scale-out/run.mjs [--sessions N]   (a positive integer, got ${JSON.stringify(sessions)})`)
  process.exit(2)
}
const ttlAt = args.indexOf('--lease-ttl-ms')
const leaseTtl = ttlAt >= 0 ? args[ttlAt + 1] : '4000'
if (!/^[1-9]\d*$/.test(leaseTtl ?? '')) {
  console.error(`Usage: node tests/scale-out/run.mjs [--sessions N] [--lease-ttl-ms MS]   (got --lease-ttl-ms ${JSON.stringify(leaseTtl)})`)
  process.exit(2)
}
const result = spawnSync('npx', ['vitest', 'run', 'tests/scale-out'], {
  stdio: 'inherit',
  env: { ...process.env, BOSUN_SCALE_SESSIONS: sessions, BOSUN_SCALE_LEASE_TTL_MS: leaseTtl, BOSUN_SCALE_PROGRESS: '1' },
})
process.exit(result.status ?? 1)
