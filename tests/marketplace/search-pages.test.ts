// `bosun plugins search` past one page of the registry's search API. It asked once, with
// size=250, and never for the next page: a search with more matches listed the first 250 and
// said nothing. The paging against the test Verdaccio (searching what was published to it, see
// tests/release/registry-server.mjs) with pages of 3 — 260 packages to make two real pages take
// minutes to publish and search on a loaded machine — and the built `bosun` against a local HTTP
// server speaking the search API with thousands of matches: pages of 250, the 1,000 cap, its line.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readNpmConfig } from '../../packages/cli/src/marketplace/npm-config.js'
import { RegistryClient, type SearchPage } from '../../packages/cli/src/marketplace/registry-client.js'
import { searchPackages } from '../../packages/cli/src/marketplace/search.js'
import { cleanEnv, describe as described, run, type Finished } from '../release/processes.js'
import { startRegistry, type Registry } from '../release/registry.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const BIN = join(root, 'packages/cli/dist/bin.js')
const names = Array.from({ length: 8 }, (_, i) => `bosun-plugin-paged-${i}`)

let work: string
let registry: Registry
let env: Record<string, string>

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsc -b tsconfig.build.json); the test drives the built CLI.`)
  work = await realpath(await mkdtemp(join(tmpdir(), 'bosun-search-pages-')))
  registry = await startRegistry(join(work, 'registry'))
  env = cleanEnv({ npm_config_userconfig: registry.npmrc, npm_config_globalconfig: join(work, 'npm-globalconfig'), NO_COLOR: '1' })
  await writeFile(join(work, 'package.json'), '{ "name": "searcher", "private": true }\n')
  for (const name of names) await publish(name)
  await publish('paged-not-bosun', [])
}, 0)

afterAll(async () => {
  await registry?.close()
  if (work !== undefined) await rm(work, { recursive: true, force: true })
}, 60_000)

/** A version document and a tarball, PUT through the registry's publish API as `npm publish` sends them. */
async function publish(name: string, keywords = ['bosun-plugin']): Promise<void> {
  const manifest = { name, version: '1.0.0', description: `Paged fixture ${name}`, keywords, bosun: { hooks: ['agent/pre-step'] } }
  const tarball = gzipSync(Buffer.from(JSON.stringify(manifest)))
  const file = `${name}-1.0.0.tgz`
  const body = {
    _id: name,
    name,
    description: manifest.description,
    'dist-tags': { latest: '1.0.0' },
    versions: { '1.0.0': { ...manifest, _id: `${name}@1.0.0`, dist: { tarball: `${registry.url}${name}/-/${file}`, shasum: createHash('sha1').update(tarball).digest('hex') } } },
    _attachments: { [file]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
  }
  const response = await fetch(new URL(name, registry.url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${registry.token}` },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`publishing ${name}: ${response.status} ${await response.text()}`)
}

/** The client `bosun` makes from the test's npm configuration, noting the pages asked for. */
class NotingClient extends RegistryClient {
  readonly pages: { text: string; from: number; size: number }[] = []
  override async search(text: string, registry?: string, size?: number, from?: number): Promise<SearchPage> {
    this.pages.push({ text, from: from ?? 0, size: size ?? 250 })
    return super.search(text, registry, size, from)
  }
}

describe('searchPackages against Verdaccio, pages of 3', () => {
  it('reads page after page until a short one and lists every match once', async () => {
    const client = new NotingClient(readNpmConfig(work, env))
    const { results, cut } = await searchPackages(client, ['paged'], { pageSize: 3 })
    expect(results.map((result) => result.name)).toEqual(names)
    expect(results.every((result) => result.hooks?.[0] === 'agent/pre-step')).toBe(true)
    expect(cut).toEqual([])
    // Verdaccio matches the words against names and descriptions only: the plain-text query finds them all.
    expect(client.pages.filter((page) => page.text === 'paged')).toEqual([0, 3, 6, 9].map((from) => ({ text: 'paged', from, size: 3 })))
  })

  it('cut at the cap: Verdaccio gives no total, so one more match is asked for, and the cut is said', async () => {
    const client = new NotingClient(readNpmConfig(work, env))
    const { results, cut } = await searchPackages(client, ['paged'], { pageSize: 3, maxMatches: 6 })
    // The first six matches in Verdaccio's order (its storage folders'): six Bosun packages, or
    // five and the one that is not.
    expect(names).toEqual(expect.arrayContaining(results.map((result) => result.name)))
    expect(results.length).toBeGreaterThanOrEqual(5)
    expect(cut).toEqual([{ registry: registry.url, query: 'paged', read: 6, total: undefined }])
    expect(client.pages.filter((page) => page.text === 'paged').at(-1)).toEqual({ text: 'paged', from: 6, size: 1 })
  })
})

const bosun = (args: string[]) => run(process.execPath, [BIN, ...args], { cwd: work, env })

function ok(result: Finished, args: string[]): Finished {
  expect(result.code, described('bosun', args, { cwd: work, env }, result)).toBe(0)
  return result
}

describe('bosun plugins search past one page', { timeout: 0 }, () => {
  it('--json --limit lists the first n found, each with the hooks its document gives', async () => {
    const args = ['plugins', 'search', 'paged', '--json', '--limit', '3']
    const listed = ok(await bosun(args), args).stdout.trim().split('\n').map((line) => JSON.parse(line) as { name: string; hooks?: string[] })
    expect(listed.map((result) => [result.name, result.hooks])).toEqual(names.slice(0, 3).map((name) => [name, ['agent/pre-step']]))
  })

  it('a search with more matches than it reads lists the first 1,000 of each query and says how many were left and how to narrow it', async () => {
    // 4,321 plugins with a total as npmjs gives it; 1,200 adapters with Verdaccio's total (the page's).
    const kinds: Record<string, { count: number; total: 'all' | 'page' }> = { 'keywords:bosun-plugin': { count: 4321, total: 'all' }, 'keywords:bosun-adapter': { count: 1200, total: 'page' } }
    const pluginPages: string[] = []
    const server: Server = createServer((request, response) => {
      const url = new URL(request.url!, 'http://registry')
      if (url.pathname !== '/-/v1/search') return response.writeHead(404, { 'content-type': 'application/json' }).end('{}')
      // The keyword qualifier decides; words after it match every plugin (and no adapter).
      const [qualifier, ...words] = url.searchParams.get('text')!.split(' ')
      const kind = words.length > 0 && qualifier === 'keywords:bosun-adapter' ? undefined : kinds[qualifier!]
      if (qualifier === 'keywords:bosun-plugin' && words.length === 0) pluginPages.push(`${url.searchParams.get('from')}+${url.searchParams.get('size')}`)
      const from = Number(url.searchParams.get('from'))
      const size = Math.min(250, Number(url.searchParams.get('size')), Math.max(0, (kind?.count ?? 0) - from))
      const keyword = qualifier!.slice('keywords:'.length)
      const objects = Array.from({ length: size }, (_, i) => ({ package: { name: `${keyword}-many-${String(from + i).padStart(4, '0')}`, version: '1.0.0', keywords: [keyword] } }))
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ objects, total: kind?.total === 'all' ? kind.count : objects.length }))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    try {
      const many = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const args = ['plugins', 'search', '--registry', many, '--json']
      const searched = ok(await bosun(args), args)
      const listed = searched.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { name: string }).name)
      expect(listed).toHaveLength(2000)
      expect(pluginPages).toEqual(['0+250', '250+250', '500+250', '750+250'])
      expect(listed.filter((name) => name.startsWith('bosun-plugin-many-'))).toEqual(Array.from({ length: 1000 }, (_, i) => `bosun-plugin-many-${String(i).padStart(4, '0')}`))
      expect(searched.stderr).toBe(
        `${many} has more matches than a search reads (the first 1,000 of each query): 3,321 of 4,321 for "keywords:bosun-plugin" left unread; more than 1,000 for "keywords:bosun-adapter" (it does not say how many). Bosun packages among those left unread are not listed: narrow the search with more words (bosun plugins search <words>), or name the package: bosun plugins info <name>.\n`,
      )
      const narrowed = ok(await bosun(['plugins', 'search', 'many', '--registry', many]), args)
      expect(narrowed.stderr).toContain('narrow the search with more words (bosun plugins search many <another word>)')
    } finally {
      await new Promise((done) => { server.close(done); server.closeAllConnections() })
    }
  })
})
