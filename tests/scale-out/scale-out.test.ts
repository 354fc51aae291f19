import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresAvailable, startPostgres, type PostgresServer } from '@bosun/testkit'
import { runScaleOut } from './campaign.js'

const available = postgresAvailable()
/** `node tests/scale-out/run.mjs --sessions 300` raises it; the default suite runs 30 sessions on 3 hosts. */
const sessions = Number(process.env.BOSUN_SCALE_SESSIONS ?? 30)
const leaseTtlMs = Number(process.env.BOSUN_SCALE_LEASE_TTL_MS ?? 4000)

describe.skipIf(!available)('scale-out: three bosun hosts on one PostgreSQL, one SIGKILLed mid-turn', () => {
  let server: PostgresServer | undefined
  beforeAll(async () => {
    // The host processes run the built packages.
    execFileSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-b', 'tsconfig.build.json'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: 'inherit' })
    server = await startPostgres()
  }, 600_000)
  afterAll(async () => server?.stop(), 120_000)

  it(`every admitted message is answered exactly once, seqs are contiguous and streams resume on the other hosts (${sessions} sessions)`, async () => {
    const report = await runScaleOut({ url: server!.url, sessions, leaseTtlMs, progress: process.env.BOSUN_SCALE_PROGRESS ? (line) => console.error(`[scale-out] ${line}`) : undefined })
    if (process.env.BOSUN_SCALE_PROGRESS) console.error('[scale-out] report', JSON.stringify(report))
    // At least one message per session before the kill and one after it, each answered once.
    expect(report.messages).toBeGreaterThanOrEqual(sessions * 2)
    // The kill landed mid-turn: the crash repair closed turns the dead host left open.
    expect(report.interruptedTurns).toBeGreaterThan(0)
    // The streams that were on the killed host came back on another.
    expect(report.resumedStreams).toBeGreaterThanOrEqual(report.victimSessions)
  }, 900_000)
})
