// What `bosun plugins search` costs near its cap. Every package listed was one request for its
// document (its hooks), so a search finding thousands made thousands of requests; and a page
// shorter than asked for was taken as the end, so a registry that gives fewer hits a page than
// npmjs and Verdaccio (250) was read to its first page and no further, without a word. Real HTTP
// servers on 127.0.0.1 speaking the search API, counting the requests.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { RegistryClient } from './registry-client.js'
import { searchPackages, type SearchProgress } from './search.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => { server.close(done); server.closeAllConnections() })))
})

interface Registry {
  url: string
  /** The `from` of each `keywords:bosun-plugin` page asked for, in order. */
  froms: number[]
  /** The package documents asked for, by name. */
  documents: string[]
}

/**
 * A registry whose `keywords:bosun-plugin` search matches `names`, `cap` hits a page at most
 * whatever `size` asks; `total` as npmjs gives it (every match), as Verdaccio 6.8 does (the page's
 * hits) or none; `bosunInHit` puts the `bosun` field in each hit, as npmjs and Verdaccio do not.
 */
async function registry(names: string[], options: { cap?: number; total?: 'all' | 'page' | 'none'; bosunInHit?: boolean } = {}): Promise<Registry> {
  const froms: number[] = []
  const documents: string[] = []
  const bosun = { hooks: ['agent/pre-step'] }
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://registry')
    response.setHeader('content-type', 'application/json')
    if (url.pathname === '/-/v1/search') {
      if (url.searchParams.get('text') !== 'keywords:bosun-plugin') return response.end('{"objects":[],"total":0}')
      const from = Number(url.searchParams.get('from'))
      froms.push(from)
      const page = names.slice(from, from + Math.min(options.cap ?? 250, Number(url.searchParams.get('size'))))
      const objects = page.map((name) => ({ package: { name, version: '1.0.0', keywords: ['bosun-plugin'], ...(options.bosunInHit && { bosun }) } }))
      const total = options.total === 'none' ? {} : { total: options.total === 'page' ? page.length : names.length }
      return response.end(JSON.stringify({ objects, ...total }))
    }
    const name = decodeURIComponent(url.pathname.slice(1))
    documents.push(name)
    response.end(JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name, version: '1.0.0', keywords: ['bosun-plugin'], bosun } } }))
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, froms, documents }
}

const client = (url: string) => new RegistryClient({ registry: url, scopes: new Map(), credentials: new Map(), variables: new Set<string>() })

const plugins = (count: number) => Array.from({ length: count }, (_, i) => `bosun-plugin-p${String(i).padStart(3, '0')}`)

describe('searchPackages: a registry whose pages are smaller than asked for', () => {
  it.each(['page', 'none'] as const)('keeps paging while a page holds something new (total: %s), and stops at a page shorter than the registry\'s own', async (total) => {
    const names = plugins(230)
    const { url, froms } = await registry(names, { cap: 100, total })
    const { results, matched } = await searchPackages(client(url), [], { limit: 3 })
    expect(matched).toBe(230)
    expect(results.map((result) => result.name)).toEqual(names.slice(0, 3))
    // The page of 30 is shorter than the registry's 100: the last, with no page asked after it.
    expect(froms).toEqual([0, 100, 200])
  })

  it('keeps paging while the registry\'s total (npmjs) says there are more', async () => {
    const { url, froms } = await registry(plugins(230), { cap: 100, total: 'all' })
    expect((await searchPackages(client(url), [], { limit: 3 })).matched).toBe(230)
    expect(froms).toEqual([0, 100, 200])
  })

  it('a short first page that is all there is costs one request more without a total, none with npmjs\'s', async () => {
    const none = await registry(plugins(4), { total: 'page' })
    expect((await searchPackages(client(none.url), [])).matched).toBe(4)
    expect(none.froms).toEqual([0, 4])
    const npmjs = await registry(plugins(300), { total: 'all' })
    expect((await searchPackages(client(npmjs.url), [], { limit: 1 })).matched).toBe(300)
    expect(npmjs.froms).toEqual([0, 250])
  })

  it('the cap still holds, and is said, on such a registry', async () => {
    const { url, froms } = await registry(plugins(1500), { cap: 100, total: 'none' })
    const { matched, cut } = await searchPackages(client(url), [], { limit: 1 })
    expect(matched).toBe(1000)
    expect(cut).toEqual([{ registry: url, query: 'keywords:bosun-plugin', read: 1000, total: undefined }])
    expect(froms).toEqual([...Array.from({ length: 10 }, (_, i) => i * 100), 1000])
  })
})

describe('searchPackages: the documents read for hooks', () => {
  it('are read only for the packages returned (limit), first-party first then by name', async () => {
    const names = [...plugins(40), '@bosun/plugin-first']
    const { url, documents } = await registry(names)
    const { results, matched } = await searchPackages(client(url), [], { limit: 5 })
    expect(matched).toBe(41)
    expect(results.map((result) => [result.name, result.hooks])).toEqual(['@bosun/plugin-first', ...plugins(4)].map((name) => [name, ['agent/pre-step']]))
    expect(documents.sort()).toEqual(['@bosun/plugin-first', ...plugins(4)].sort())
  })

  it('are not read when the hit carries the `bosun` field', async () => {
    const { url, documents } = await registry(plugins(12), { bosunInHit: true })
    const { results } = await searchPackages(client(url), [])
    expect(results).toHaveLength(12)
    expect(results.every((result) => result.hooks?.[0] === 'agent/pre-step')).toBe(true)
    expect(documents).toEqual([])
  })

  it('progress: the matches read while searching, then each document read', async () => {
    const { url } = await registry(plugins(300), { total: 'all' })
    const steps: SearchProgress[] = []
    await searchPackages(client(url), [], { limit: 4, onProgress: (step) => steps.push(step) })
    const searching = steps.filter((step) => step.stage === 'searching').map((step) => step.matches)
    expect(searching).toEqual([...searching].sort((a, b) => a - b))
    expect(searching.at(-1)).toBe(300)
    expect(steps.filter((step) => step.stage === 'reading')).toEqual([0, 1, 2, 3, 4].map((done) => ({ stage: 'reading', done, of: 4 })))
    expect(steps.findIndex((step) => step.stage === 'reading')).toBeGreaterThan(steps.findLastIndex((step) => step.stage === 'searching'))
  })
})
