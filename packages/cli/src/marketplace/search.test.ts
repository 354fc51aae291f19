// `bosun plugins search` asks every scope's registry of the npm configuration as well as the
// default one. A scope's registry that could not be asked (a company registry off the VPN, one
// that needs a login) failed the whole search, with advice about the default registry, and
// --registry (which replaces only the default) could not get around it. Real HTTP servers on
// 127.0.0.1; port 0 is a refused connection.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { RegistryClient } from './registry-client.js'
import { searchPackages } from './search.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => { server.close(done); server.closeAllConnections() })))
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

const guard = { name: 'bosun-plugin-guard', version: '1.0.0', keywords: ['bosun-plugin'], bosun: { hooks: ['agent/pre-step'] } }

/** A registry with one Bosun plugin, found by any search. */
const defaultRegistry = () =>
  serve((request, response) => {
    response.setHeader('content-type', 'application/json')
    if (request.url!.startsWith('/-/v1/search')) response.end(JSON.stringify({ objects: [{ package: guard }] }))
    else if (request.url === '/bosun-plugin-guard') response.end(JSON.stringify({ name: guard.name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': guard } }))
    else response.writeHead(404).end('{}')
  })

const client = (registry: string, scopes: [string, string][]) =>
  new RegistryClient({ registry, scopes: new Map(scopes), credentials: new Map(), variables: new Set<string>() })

describe('searchPackages: a scope registry that cannot be asked', () => {
  it('leaves its scopes out and says so; the default registry is still searched', async () => {
    const registry = await defaultRegistry()
    const login = await serve((_, response) => response.writeHead(401).end('{}'))
    const { results, unsearched } = await searchPackages(client(registry, [['@acme', 'http://127.0.0.1:0/'], ['@corp', login], ['@corp-two', login]]), ['guard'])
    expect(results.map((result) => [result.name, result.hooks])).toEqual([['bosun-plugin-guard', ['agent/pre-step']]])
    expect(unsearched.map(({ scopes, code }) => [scopes, code])).toEqual([
      [['@acme'], 'REGISTRY_UNREACHABLE'],
      [['@corp', '@corp-two'], 'REGISTRY_AUTH_REQUIRED'],
    ])
  })

  it('the default registry down is still the command\'s error', async () => {
    const scoped = await defaultRegistry()
    await expect(searchPackages(client('http://127.0.0.1:0/', [['@acme', scoped]]), [])).rejects.toMatchObject({ code: 'REGISTRY_UNREACHABLE' })
  })
})

describe('searchPackages: the words', () => {
  it('are sent in lower case, as npm search sends them: Verdaccio matches case-sensitively', async () => {
    const texts: string[] = []
    // Verdaccio 6.8's matcher: every word a substring of the name (or description), case and all.
    const registry = await serve((request, response) => {
      const url = new URL(request.url!, 'http://registry')
      response.setHeader('content-type', 'application/json')
      if (url.pathname !== '/-/v1/search') return response.end(JSON.stringify({ name: guard.name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': guard } }))
      const text = url.searchParams.get('text')!
      texts.push(text)
      response.end(JSON.stringify({ objects: text.split(' ').every((word) => guard.name.includes(word)) ? [{ package: guard }] : [] }))
    })
    const { results } = await searchPackages(client(registry, []), ['Guard'])
    expect(results.map((result) => result.name)).toEqual(['bosun-plugin-guard'])
    expect(texts).toContain('guard')
    expect(texts).toContain('keywords:bosun-plugin guard')
  })
})
