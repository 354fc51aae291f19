// `bosun plugins search` asks the default registry and every scope's registry of the npm
// configuration, but its closing line named the default registry alone: "2 on
// https://registry.npmjs.org/" for a list with a package from the company registry, and "No
// Bosun package on https://registry.npmjs.org/ matches …" when the company one was searched too.
// The built `bosun` against local HTTP servers speaking the search API; port 0 is a refused
// connection (a scope registry off the VPN).
import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { cleanEnv, describe as described, run } from '../release/processes.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')

let work: string
const servers: Server[] = []

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-search-registries-')))
})

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => { server.close(done); server.closeAllConnections() })))
  if (work !== undefined) await rm(work, { recursive: true, force: true })
})

/** A registry whose search finds one Bosun plugin, `name`, when the text contains "guard". */
async function registry(name: string): Promise<string> {
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://registry')
    const found = url.pathname === '/-/v1/search' && url.searchParams.get('text')!.includes('guard')
    response.writeHead(url.pathname === '/-/v1/search' ? 200 : 404, { 'content-type': 'application/json' })
    response.end(url.pathname === '/-/v1/search' ? JSON.stringify({ objects: found ? [{ package: { name, version: '1.0.0', keywords: ['bosun-plugin'] } }] : [] }) : '{}')
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

it('the closing line names every registry searched, each scope registry with its scopes, and not one that could not be asked', async () => {
  const main = await registry('bosun-plugin-main-guard')
  const acme = await registry('@acme/bosun-plugin-acme-guard')
  await writeFile(join(work, 'package.json'), '{ "name": "searcher", "private": true }\n')
  await writeFile(join(work, '.npmrc'), `registry=${main}\n@acme:registry=${acme}\n@acme-two:registry=${acme}\n@corp:registry=http://127.0.0.1:0/\n`)
  const env = cleanEnv({ npm_config_userconfig: join(work, 'no-user-npmrc'), npm_config_globalconfig: join(work, 'no-global-npmrc'), NO_COLOR: '1' })
  const where = `${main} and ${acme} (@acme, @acme-two)`

  const found = await run(process.execPath, [BIN, 'plugins', 'search', 'guard'], { cwd: work, env })
  expect(found.code, described('bosun', ['plugins', 'search', 'guard'], { cwd: work, env }, found)).toBe(0)
  expect(found.stdout).toMatch(/\n@acme\/bosun-plugin-acme-guard\s+1\.0\.0\s/)
  expect(found.stdout).toMatch(/\nbosun-plugin-main-guard\s+1\.0\.0\s/)
  expect(found.stderr).toContain('@corp not searched (REGISTRY_UNREACHABLE)')
  expect(found.stderr).toContain(`2 on ${where}. Before adding one`)

  const none = await run(process.execPath, [BIN, 'plugins', 'search', 'nothing'], { cwd: work, env })
  expect(none.code).toBe(0)
  expect(none.stderr).toContain(`No Bosun package on ${where} matches "nothing".`)
})
