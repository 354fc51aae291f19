// A private npm registry for the release rehearsal: Verdaccio on 127.0.0.1 (a free port), its
// storage and users in a temp folder. Bosun's names are served only from what was published to
// it; anything else (ajv, vitest…) is fetched from the npm registry through Verdaccio's uplink,
// so a project installs exactly as it would from the public registry once Bosun is published.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

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
  const child = spawn(process.execPath, [fileURLToPath(new URL('registry-server.mjs', import.meta.url)), JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'], // stdin stays open while the test runs (see registry-server.mjs)
  })
  const exited = once(child, 'close')
  // Verdaccio's own log lines (errors only) are passed on; `listening on <port>` says it is up.
  const said: string[] = []
  let port: string | undefined
  for await (const line of createInterface({ input: child.stdout })) {
    port ??= /^listening on (\d+)$/.exec(line)?.[1]
    if (port !== undefined) break
    said.push(line)
  }
  child.stdout.on('data', (data: Buffer) => process.stderr.write(data))
  if (port === undefined) throw new Error(`Verdaccio ended before it listened:\n${said.join('\n')}`)
  const url = `http://127.0.0.1:${port}/`
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }

  const response = await fetch(new URL('-/user/org.couchdb.user:rehearsal', url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-password', type: 'user', roles: [], date: new Date().toISOString() }),
  })
  const answer = (await response.json()) as { token?: string }
  if (!response.ok || typeof answer.token !== 'string') {
    await close()
    throw new Error(`Verdaccio refused to add the rehearsal user (${response.status}): ${JSON.stringify(answer)}`)
  }
  const npmrc = join(dir, 'npmrc')
  const host = url.replace(/^http:/, '')
  await writeFile(npmrc, [`registry=${url}`, `${host}:_authToken=${answer.token}`, 'audit=false', 'fund=false', 'update-notifier=false', ''].join('\n'))
  return { url, npmrc, token: answer.token, close }
}
