// A private npm registry for the release rehearsal: Verdaccio on 127.0.0.1 (a free port), its
// storage and users in a temp folder. Bosun's names are served only from what was published to
// it; anything else (ajv, vitest…) is fetched from the npm registry through Verdaccio's uplink,
// so a project installs exactly as it would from the public registry once Bosun is published.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { STOP_GRACE_MS, watchChild } from '../support/child-process.js'

export interface Registry {
  /** `http://127.0.0.1:<port>/` */
  url: string
  /** An `.npmrc` naming the registry, with the publishing user's token. */
  npmrc: string
  /** That token (for tests that must see it is never printed). */
  token: string
  close(): Promise<void>
}

/** Packages that never come from the uplink: ours, and the plugin names the rehearsal publishes. */
const LOCAL_ONLY = ['@bosun/*', 'create-bosun-plugin', 'bosun-plugin-*', 'bosun-adapter-*']

/**
 * Starts Verdaccio with its storage in `dir`, adds a user through the registry's own adduser API
 * (what `npm adduser` calls) and writes an `.npmrc` with its token. `upstream` is the registry
 * third-party packages come from (default: the npm registry). Packages matching a `restricted`
 * pattern (`@private/*`) are served only to a logged-in user, as on a company registry.
 */
export async function startRegistry(dir: string, upstream = 'https://registry.npmjs.org/', restricted: readonly string[] = []): Promise<Registry> {
  await mkdir(join(dir, 'storage'), { recursive: true })
  const access = { access: '$all', publish: '$authenticated', unpublish: '$authenticated' }
  const config = {
    self_path: join(dir, 'config.yaml'),
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 10 } },
    // A slow or failed fetch is retried by npm; Verdaccio must not declare the uplink offline
    // for minutes after two of them (its default), or every later install would fail. A
    // document fetched once serves the whole rehearsal (`maxage`); tarballs pass through
    // without being stored and hashed again (`cache: false`: a third less of Verdaccio's work).
    uplinks: { npmjs: { url: upstream, timeout: '120s', max_fails: 1000, fail_timeout: '1s', maxage: '1h', cache: false } },
    packages: {
      ...Object.fromEntries(restricted.map((pattern) => [pattern, { ...access, access: '$authenticated' }])),
      ...Object.fromEntries(LOCAL_ONLY.map((pattern) => [pattern, access])),
      '**': { ...access, proxy: 'npmjs' },
    },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
  }
  const { port, stop: close } = await startListening(fileURLToPath(new URL('registry-server.mjs', import.meta.url)), [JSON.stringify(config)])
  const url = `http://127.0.0.1:${port}/`

  // A registry that cannot add the user is stopped: nothing else would stop it.
  const token = await addUser(url).catch(async (error: unknown) => {
    await close()
    throw error
  })
  const npmrc = join(dir, 'npmrc')
  const host = url.replace(/^http:/, '')
  await writeFile(npmrc, [`registry=${url}`, `${host}:_authToken=${token}`, 'audit=false', 'fund=false', 'update-notifier=false', ''].join('\n'))
  return { url, npmrc, token, close }
}

/** Adds the rehearsal user through the registry's adduser API (what `npm adduser` calls); resolves with its token. */
async function addUser(url: string): Promise<string> {
  const response = await fetch(new URL('-/user/org.couchdb.user:rehearsal', url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-password', type: 'user', roles: [], date: new Date().toISOString() }),
  })
  const answer = (await response.json()) as { token?: string }
  if (!response.ok || typeof answer.token !== 'string') throw new Error(`Verdaccio refused to add the rehearsal user (${response.status}): ${JSON.stringify(answer)}`)
  return answer.token
}

/**
 * How long Verdaccio may take to listen before it is reported as stuck (and killed): a guard
 * against a hang, not a measure, below the 60 s of the hooks that start it.
 */
export const START_TIMEOUT_MS = 45_000

export interface Listening {
  port: string
  child: ChildProcess
  /** SIGTERM, then SIGKILL if it has not exited within the grace; resolves once it has. */
  stop(): Promise<void>
}

/**
 * Runs the Node script `script` (registry-server.mjs) and resolves once it prints `listening on
 * <port>`, passing on what it printed before and after (Verdaccio's errors). Rejects, the child
 * killed, if it ends, cannot start or has not listened within `startTimeoutMs`.
 */
export async function startListening(script: string, args: readonly string[], options: { startTimeoutMs?: number; stopGraceMs?: number } = {}): Promise<Listening> {
  const { startTimeoutMs = START_TIMEOUT_MS, stopGraceMs = STOP_GRACE_MS } = options
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'], // stdin stays open while the test runs (see registry-server.mjs)
  })
  const watched = watchChild(child)
  // Killing the child ends its stdout, and so the reading below.
  let timedOut = false
  const guard = setTimeout(() => {
    timedOut = true
    void watched.kill()
  }, startTimeoutMs)
  // Verdaccio's own log lines (errors only) are passed on; `listening on <port>` says it is up.
  const said: string[] = []
  let port: string | undefined
  try {
    for await (const line of createInterface({ input: child.stdout })) {
      port ??= /^listening on (\d+)$/.exec(line)?.[1]
      if (port !== undefined) break
      said.push(line)
    }
  } finally {
    clearTimeout(guard)
  }
  if (port === undefined) {
    await watched.kill()
    const why = watched.spawnError() !== undefined ? `could not start (${watched.spawnError()!.message})` : timedOut ? `did not listen within ${startTimeoutMs} ms and was killed` : 'ended before it listened'
    throw new Error(`${script} (pid ${child.pid ?? 'none'}) ${why}:\n${said.join('\n')}`)
  }
  child.stdout.on('data', (data: Buffer) => process.stderr.write(data))
  return { port, child, stop: () => watched.stop(stopGraceMs) }
}
