import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stopSharedCluster } from './postgres-shared.js'

/**
 * Vitest global setup (the workspace's vitest.config.ts): one PostgreSQL cluster for the whole
 * test run instead of one per test file. It starts nothing itself — the first file that calls
 * `startPostgres()` does (see postgres-shared.ts), so a run without PostgreSQL tests pays nothing —
 * and stops it when the run ends. The test workers find the run's folder in `BOSUN_PG_SHARED`
 * (they inherit this process's environment). With `BOSUN_PG_URL` set there is nothing to share.
 */
export async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.BOSUN_PG_URL || process.env.BOSUN_PG_SHARED) return undefined
  const shared = await mkdtemp(join(tmpdir(), 'bosun-pg-run-'))
  process.env.BOSUN_PG_SHARED = shared
  return async () => {
    delete process.env.BOSUN_PG_SHARED
    await stopSharedCluster(shared)
  }
}
