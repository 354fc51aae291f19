// bosun serve over a PostgreSQL store it cannot use. The store connects on its first operation:
// with a wrong password or a database that does not exist, serve printed its URL, listened, then
// answered every request 500 internal-error with a stack trace per request in its log. It now
// connects before it listens (the store's ready(): the connection and the schema's checks) and
// refuses to start with the store's error.
// A real PostgreSQL (the store's own test helper: BOSUN_PG_URL, or a throwaway cluster).
import { createServer, type Socket } from 'node:net'
import { beforeAll, describe } from 'vitest'
import { available, usePostgres } from '../../plugins/store-postgres/src/testing/postgres.js'
import { bosun, finished, it, requireBuild, start, waitFor, writeProject } from './helpers.js'

beforeAll(requireBuild)

const SECRET = 'not-shown-secret'
const project = (dir: string, options: Record<string, unknown> = {}) => writeProject(dir, { store: ['store-postgres', { urlEnv: 'BOSUN_PG_URL', ...options }] })
const urlOf = (stdout: string) => /listening on (http:\/\/\S+)/.exec(stdout)?.[1]
/** `postgres://host:port/db`, as the store's messages name a database (no user, no password). */
const named = (url: URL) => `postgres://${url.host}${url.pathname}`

describe.skipIf(!available).concurrent('bosun serve over a PostgreSQL store it cannot use', () => {
  const pg = usePostgres()

  // The cluster's own URL with one part wrong, and what the store says of it.
  const refusals = [
    { what: 'a wrong password', change: (url: URL) => (url.password = SECRET), says: (url: URL) => `password authentication failed for user "${url.username}" (check the user and password in the URL)` },
    { what: 'a database that does not exist', change: (url: URL) => (url.pathname = '/no_such_database'), says: () => 'database "no_such_database" does not exist (create the database, or name one that exists in the URL)' },
  ]
  for (const { what, change, says } of refusals) {
    it(`refuses ${what} before it listens: the store's error, exit 1, no URL, no stack, no password`, async ({ dir, expect }) => {
      await project(dir)
      const url = new URL(pg.url())
      change(url)
      const result = await bosun(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_PG_URL: url.href } })
      expect([result.code, result.stdout]).toEqual([1, ''])
      expect(result.stderr).toBe(`error STORE: PostgreSQL store ${named(url)}: could not prepare schema "bosun": ${says(url)}\n`)
      expect(result.stderr).not.toContain(url.password)
    })
  }

  it('bosun acp refuses it the same way before it answers (its stdout, the protocol, stays empty)', async ({ dir, expect }) => {
    await project(dir)
    const url = new URL(pg.url())
    url.password = SECRET
    const result = await bosun(['acp'], { cwd: dir, env: { BOSUN_PG_URL: url.href } })
    expect([result.code, result.stdout]).toEqual([1, ''])
    expect(result.stderr).toBe(`error STORE: PostgreSQL store ${named(url)}: could not prepare schema "bosun": password authentication failed for user "${url.username}" (check the user and password in the URL)\n`)
  })

  it('refuses a schema of a layout newer than this build', async ({ dir, expect }) => {
    const schema = pg.schema()
    await pg.sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".bosun_schema (version integer NOT NULL); INSERT INTO "${schema}".bosun_schema VALUES (999)`)
    await project(dir, { schema })
    const result = await bosun(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_PG_URL: pg.url() } })
    expect([result.code, result.stdout]).toEqual([1, ''])
    expect(result.stderr).toMatch(new RegExp(`^error UNSUPPORTED_LOG_VERSION: PostgreSQL store \\S+: schema "${schema}" has layout version 999, but this build .* Upgrade the plugin, or use another schema\\.\\n$`))
  })

  it('a store it can use: the schema is ready before the URL is printed, and a session is made over HTTP', async ({ dir, expect }) => {
    const schema = pg.schema()
    await project(dir, { schema })
    const child = start(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_PG_URL: pg.url() } })
    await waitFor(() => urlOf(child.output.stdout) !== undefined || child.exitCode !== null, 'the URL')
    const url = urlOf(child.output.stdout)
    expect(url, child.output.stderr).toBeDefined()
    expect(await pg.sql(`SELECT to_regclass('"${schema}".sessions') IS NOT NULL AS made`)).toEqual([{ made: true }])
    const created = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'pg-1' }) })
    expect(created.status).toBe(201)
    child.kill('SIGTERM')
    expect((await finished(child)).code).toBe(0)
  })

  it('says once that it still waits for a database that does not answer, then refuses it', async ({ dir, expect }) => {
    // A server that takes the connection and never says a word: the store gives up after its statementTimeoutMs and 1 s.
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket.on('error', () => {})))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const port = (silent.address() as { port: number }).port
      await project(dir, { statementTimeoutMs: 2000 })
      const result = await bosun(['serve', '--port', '0'], { cwd: dir, env: { BOSUN_PG_URL: `postgres://bosun:${SECRET}@127.0.0.1:${port}/db`, BOSUN_SLOW_SETUP_MS: '200' } })
      expect([result.code, result.stdout]).toEqual([1, ''])
      const lines = result.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`still waiting for the store postgres://127.0.0.1:${port}/db to answer after 200 ms: bosun serve listens once it has (Ctrl+C stops it)`)
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^error STORE: PostgreSQL store postgres:\/\/127\.0\.0\.1:\d+\/db: could not prepare schema "bosun": the database did not answer a new connection within \d+ ms .*Check that PostgreSQL is up and reachable/)])
      expect(result.stderr).not.toContain(SECRET)
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
  })
})
