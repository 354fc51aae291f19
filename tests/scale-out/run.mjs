// `node tests/scale-out/run.mjs --sessions 300 [--lease-ttl-ms 4000]`: the scale-out campaign with more
// sessions than the default suite runs (30 on 3 hosts); progress and the report (failover time
// included: docs/benchmarks.md) go to stderr.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)
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
