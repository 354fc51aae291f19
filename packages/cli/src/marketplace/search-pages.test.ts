// `bosun plugins search` asked each registry one page (size 250) and never the next: a query with
// more matches silently listed the first page only. Real HTTP servers on 127.0.0.1 speaking the
// search API with `from` and `size`, capping `size` the way npmjs and Verdaccio cap it at 250 —
// here at 3, the page size the tests ask for, so that a few packages make several pages.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { RegistryClient } from './registry-client.js'
import { searchPackages } from './search.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => { server.close(done); server.closeAllConnections() })))
})

const PAGE = 3

interface Registry {
  url: string
  /** The `from` of each `keywords:bosun-plugin` page asked for, in order. */
  froms: number[]
}

/**
 * A registry whose `keywords:bosun-plugin` search matches `names()` (read at each request, so a
 * test can publish between pages), `PAGE` at most per page. `total` as npmjs gives it (every
 * match) or as Verdaccio 6.8 does (the page's hits); `ignoresFrom` answers the first page always;
 * `failFrom` answers 500 from that offset on.
 */
async function registry(names: () => string[], options: { total?: 'all' | 'page'; ignoresFrom?: boolean; failFrom?: number; plainMatches?: number } = {}): Promise<Registry> {
  const froms: number[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://registry')
    response.setHeader('content-type', 'application/json')
    if (url.pathname === '/-/v1/search') {
      if (!url.searchParams.get('text')!.startsWith('keywords:')) {
        // The words as plain text: `plainMatches` packages without a Bosun keyword, npmjs's total.
        const count = options.plainMatches ?? 0
        const from = Number(url.searchParams.get('from'))
        const page = Array.from({ length: Math.max(0, Math.min(PAGE, Number(url.searchParams.get('size')), count - from)) }, (_, i) => ({ package: { name: `plain-${from + i}`, version: '1.0.0' } }))
        return response.end(JSON.stringify({ objects: page, total: count }))
      }
      if (!url.searchParams.get('text')!.startsWith('keywords:bosun-plugin')) return response.end('{"objects":[],"total":0}')
      const from = options.ignoresFrom ? 0 : Number(url.searchParams.get('from') ?? 0)
      froms.push(from)
      if (options.failFrom !== undefined && from >= options.failFrom) return response.writeHead(500).end('{}')
      const all = names()
      const page = all.slice(from, from + Math.min(PAGE, Number(url.searchParams.get('size'))))
      const objects = page.map((name) => ({ package: { name, version: '1.0.0', keywords: ['bosun-plugin'] } }))
      return response.end(JSON.stringify({ objects, total: options.total === 'page' ? page.length : all.length }))
    }
    const name = decodeURIComponent(url.pathname.slice(1))
    response.end(JSON.stringify({ name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name, version: '1.0.0', keywords: ['bosun-plugin'], bosun: { hooks: ['agent/pre-step'] } } } }))
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, froms }
}

const client = (registry: string, scopes: [string, string][] = []) =>
  new RegistryClient({ registry, scopes: new Map(scopes), credentials: new Map(), variables: new Set<string>() })

const plugins = (count: number, prefix = 'bosun-plugin-') => Array.from({ length: count }, (_, i) => `${prefix}p${String(i).padStart(2, '0')}`)

describe('searchPackages: page after page', () => {
  it('asks for the next page until one comes back short, and lists every match', async () => {
    const { url, froms } = await registry(() => plugins(7))
    const { results, cut } = await searchPackages(client(url), [], { pageSize: PAGE })
    expect(results.map((result) => result.name)).toEqual(plugins(7))
    expect(results.every((result) => result.hooks?.[0] === 'agent/pre-step')).toBe(true)
    expect(froms).toEqual([0, 3, 6])
    expect(cut).toEqual([])
  })

  it('a package published between two pages shifts the results: each package is listed once', async () => {
    const names = plugins(6)
    let asked = 0
    // Published once the first page is answered: the second page starts with the first page's last.
    const { url } = await registry(() => {
      if (asked++ === 1) names.unshift('bosun-plugin-a-new')
      return names
    })
    const { results } = await searchPackages(client(url), [], { pageSize: PAGE })
    const listed = results.map((result) => result.name)
    expect(listed).toEqual([...new Set(listed)])
    expect(listed).toEqual(expect.arrayContaining(plugins(6)))
  })

  it('stops at the cap and says how many were left unread when the registry gives its total (npmjs)', async () => {
    const { url, froms } = await registry(() => plugins(10), { total: 'all' })
    const { results, cut } = await searchPackages(client(url), ['guard'], { pageSize: PAGE, maxMatches: 6 })
    expect(results.map((result) => result.name)).toEqual(plugins(6))
    expect(cut).toEqual([{ registry: url, query: 'keywords:bosun-plugin guard', read: 6, total: 10 }])
    expect(froms).toEqual([0, 3])
  })

  it('stops at the cap; without a total (Verdaccio) one more match is asked for to know there are more', async () => {
    const more = await registry(() => plugins(7), { total: 'page' })
    expect((await searchPackages(client(more.url), [], { pageSize: PAGE, maxMatches: 6 })).cut).toEqual([{ registry: more.url, query: 'keywords:bosun-plugin', read: 6, total: undefined }])
    expect(more.froms).toEqual([0, 3, 6])
    const exactly = await registry(() => plugins(6), { total: 'page' })
    const { results, cut } = await searchPackages(client(exactly.url), [], { pageSize: PAGE, maxMatches: 6 })
    expect(results).toHaveLength(6)
    expect(cut).toEqual([])
  })

  it('the plain-text query cut short is not said when the registry finds Bosun packages by keyword (npmjs)', async () => {
    const byKeyword = await registry(() => plugins(2), { plainMatches: 10 })
    const found = await searchPackages(client(byKeyword.url), ['guard'], { pageSize: PAGE, maxMatches: 6 })
    expect(found.results.map((result) => result.name)).toEqual(plugins(2))
    expect(found.cut).toEqual([])
    // No Bosun package by keyword: the registry may be one that ignores `keywords:`, so the cut is said.
    const none = await registry(() => [], { plainMatches: 10 })
    expect((await searchPackages(client(none.url), ['guard'], { pageSize: PAGE, maxMatches: 6 })).cut).toEqual([{ registry: none.url, query: 'guard', read: 6, total: 10 }])
  })

  it('a registry that ignores `from` is not asked again and again for its first page', async () => {
    const { url, froms } = await registry(() => plugins(10), { ignoresFrom: true })
    const { results, cut } = await searchPackages(client(url), [], { pageSize: PAGE })
    expect(results.map((result) => result.name)).toEqual(plugins(3))
    expect(froms).toHaveLength(2)
    expect(cut).toEqual([])
  })

  it('a scope registry failing on a later page is left out whole and said so; the default registry is listed', async () => {
    const main = await registry(() => plugins(4))
    const scoped = await registry(() => plugins(5, '@acme/bosun-plugin-'), { failFrom: PAGE })
    const { results, unsearched } = await searchPackages(client(main.url, [['@acme', scoped.url]]), [], { pageSize: PAGE })
    expect(results.map((result) => result.name)).toEqual(plugins(4))
    expect(unsearched).toEqual([{ registry: scoped.url, scopes: ['@acme'], code: 'REGISTRY_ERROR' }])
  })

  it('the default registry failing on a later page is still the command\'s error', async () => {
    const { url } = await registry(() => plugins(5), { failFrom: PAGE })
    await expect(searchPackages(client(url), [], { pageSize: PAGE })).rejects.toMatchObject({ code: 'REGISTRY_ERROR' })
  })
})
