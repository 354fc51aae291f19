// Smoke run of the host load benchmark, so that it cannot rot: two seconds, a few subscribers,
// real sockets and a real JSONL store. Asserts only the verdict and the counts (nothing lost:
// every subscriber saw every seq, every admitted message ran) — never a timing. The real run is
// `node benchmarks/host-load.mjs` (docs/benchmarks.md, "The host under load").
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const here = import.meta.dirname
const built = join(here, '../packages/host/dist/index.js')

test('host-load: a short run loses nothing and reports every figure', async () => {
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`pnpm build\` first (the benchmark runs the built packages).`)
  // No time limit of our own: on a busy machine the run takes what it takes.
  const { stdout } = await promisify(execFile)(process.execPath, [join(here, 'host-load.mjs'), '--duration', '2', '--rate', '5', '--subscribers', '6', '--sessions', '2', '--json'], { cwd: here })
  const result = JSON.parse(stdout.trim().split('\n').pop()!)
  expect(result.verdict).toMatchObject({ nothingLost: true, refusedCount: 0, unansweredCount: 0, gaps: 0, duplicates: 0, subscribersBehind: [], subscriberErrors: [] })
  expect(result.prompts).toMatchObject({ sent: 10, admitted: 10 })
  expect(result.admissionMs.count).toBe(10)
  // Each subscriber saw its whole session: frames = Σ over subscribers of its session's events.
  expect(result.throughput.framesDelivered).toBe(result.throughput.logEvents * 3)
  expect(result.deliveryLagMs.count).toBe(result.throughput.framesDelivered)
}, 600_000)

test('host-load: --help answers the usage, an unknown flag is refused with exit 2', async () => {
  const run = promisify(execFile)
  const help = await run(process.execPath, [join(here, 'host-load.mjs'), '--help'])
  expect(help.stdout).toMatch(/--subscribers <n>/)
  const refused = await run(process.execPath, [join(here, 'host-load.mjs'), '--subscribers', 'many']).catch((error: { code: number; stderr: string }) => error)
  expect(refused).toMatchObject({ code: 2 })
  expect((refused as { stderr: string }).stderr).toMatch(/--subscribers must be a positive integer/)
})
