import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { PostgresServer } from './postgres.js'

const run = promisify(execFile)

/** What the run's teardown needs to stop a shared cluster: where it lives, and as whom it runs. */
export interface ClusterState {
  url: string
  bin: string
  /** The cluster's temporary folder (removed at the end) and its data directory. */
  dir: string
  data: string
  uid?: number
  gid?: number
}

/**
 * The test run's one PostgreSQL cluster, in the run's folder `shared` (made by the global setup):
 * the first test file that asks starts it — under a lock, a directory made atomically, so two
 * files starting together start one — and writes its state there; the others read it. Every
 * caller gets `kind: 'url'` (stop() does nothing; test helpers drop their own schemas), since the
 * cluster must outlive each file. A run with no PostgreSQL test starts nothing.
 */
export async function sharedCluster(shared: string, start: (persistent: true) => Promise<PostgresServer & { state: ClusterState }>, timeoutMs: number): Promise<PostgresServer> {
  const lock = join(shared, 'lock')
  const statePath = join(shared, 'cluster.json')
  const deadline = Date.now() + timeoutMs
  // Wait for the lock: another file is starting the cluster (a condition polled, not a fixed wait).
  for (;;) {
    try {
      await mkdir(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (Date.now() > deadline) throw new Error(`startPostgres(): the run's shared cluster did not start within ${timeoutMs} ms (lock ${lock}).`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  try {
    if (!existsSync(statePath)) {
      const server = await start(true)
      await writeFile(statePath, JSON.stringify(server.state), { mode: 0o600 })
    }
    const { url } = JSON.parse(await readFile(statePath, 'utf8')) as ClusterState
    return { url, kind: 'url', stop: async () => {} }
  } finally {
    await rmdir(lock)
  }
}

/** Stops the shared cluster started in `shared`, if one was, and removes the folders. */
export async function stopSharedCluster(shared: string): Promise<void> {
  const statePath = join(shared, 'cluster.json')
  if (existsSync(statePath)) {
    const state = JSON.parse(await readFile(statePath, 'utf8')) as ClusterState
    const pgCtl = (mode: string) => [join(state.bin, 'pg_ctl'), 'stop', '-D', state.data, '-m', mode, '-w', '-t', '60']
    const as = (command: string[]) => (state.uid === undefined ? command : ['setpriv', `--reuid=${state.uid}`, `--regid=${state.gid}`, '--clear-groups', ...command])
    const stop = (mode: string) => {
      const [file, ...args] = as(pgCtl(mode))
      return run(file!, args, { timeout: 70_000 })
    }
    await stop('fast').catch(() => stop('immediate')).catch(() => {})
    await rm(state.dir, { recursive: true, force: true })
  }
  await rm(shared, { recursive: true, force: true })
}
