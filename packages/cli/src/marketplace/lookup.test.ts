// What `bosun plugins add|info` shows, checks and installs is `<name>@<version>` from the
// registry's version document: a document for one package that names another (or gives a URL as
// its version) had the package manager install something else than what was shown. A real HTTP
// registry on 127.0.0.1.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { findOnRegistry } from './lookup.js'
import { RegistryClient } from './registry-client.js'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))))
})

/** A registry serving one document for `bosun-plugin-guard` whose latest version is `version` (and `others`, by name). */
async function registryWith(version: Record<string, unknown>, others: Record<string, unknown> = {}): Promise<RegistryClient> {
  const documents: Record<string, unknown> = { ...others, 'bosun-plugin-guard': { name: 'bosun-plugin-guard', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } } }
  const server = createServer((request, response) => {
    const document = documents[decodeURIComponent(request.url!.slice(1))]
    if (document === undefined) {
      response.writeHead(404).end('{}')
      return
    }
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify(document))
  })
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return new RegistryClient({ registry, scopes: new Map(), credentials: new Map(), variables: new Set<string>() })
}

const release = { name: 'bosun-plugin-guard', version: '1.0.0', keywords: ['bosun-plugin'] }

describe('findOnRegistry: only a release of the package asked for', () => {
  it('finds a document that is a release of the name', async () => {
    const { manifest } = await findOnRegistry(await registryWith(release), 'bosun-plugin-guard')
    expect(`${manifest.name}@${manifest.version}`).toBe('bosun-plugin-guard@1.0.0')
  })

  it('refuses a document that names another package (which would be installed instead)', async () => {
    for (const name of ['bosun-plugin-other', 'https://attacker.example/x.tgz#', '--ignore-scripts=false']) {
      await expect(findOnRegistry(await registryWith({ ...release, name }), 'bosun-plugin-guard')).rejects.toMatchObject({
        code: 'REGISTRY_ERROR',
        message: `the registry's document for bosun-plugin-guard names another package (not shown); refused, nothing was installed. Check the registry (the "registry" in your .npmrc, or --registry).`,
      })
    }
  })

  it('refuses a version that is not a version number (a URL, a path, a git spec)', async () => {
    for (const version of ['https://attacker.example/x.tgz', 'file:../x', 'github:attacker/x', 'latest']) {
      await expect(findOnRegistry(await registryWith({ ...release, version }), 'bosun-plugin-guard')).rejects.toMatchObject({
        code: 'REGISTRY_ERROR',
        message: expect.stringContaining('gives a version that is not a version number (not shown); refused, nothing was installed.'),
      })
    }
  })
})

describe('findOnRegistry: a version the package does not have', () => {
  it('a short name with a missing version says which versions the package has, not that no package exists', async () => {
    for (const spec of ['guard@9.9.9', 'bosun-plugin-guard@9.9.9', 'guard@^2']) {
      await expect(findOnRegistry(await registryWith(release), spec)).rejects.toMatchObject({
        code: 'PACKAGE_NOT_FOUND',
        message: `bosun-plugin-guard has no version ${spec.split('@')[1]} (it has 1.0.0).`,
      })
    }
  })

  it('never falls through to a later candidate that has the version (the unrelated package of the typed name)', async () => {
    const unrelated = { name: 'guard', 'dist-tags': { latest: '9.9.9' }, versions: { '9.9.9': { name: 'guard', version: '9.9.9', keywords: ['bosun-plugin'] } } }
    await expect(findOnRegistry(await registryWith(release, { guard: unrelated }), 'guard@9.9.9')).rejects.toMatchObject({ code: 'PACKAGE_NOT_FOUND', message: 'bosun-plugin-guard has no version 9.9.9 (it has 1.0.0).' })
    // Without a version the config's name is found first, as before.
    const { manifest } = await findOnRegistry(await registryWith(release, { guard: unrelated }), 'guard')
    expect(manifest.name).toBe('bosun-plugin-guard')
  })

  it('a name no candidate has is still "no package … on the registry"', async () => {
    await expect(findOnRegistry(await registryWith(release), 'gaurd@1.0.0')).rejects.toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      message: expect.stringContaining('no package "@bosun/plugin-gaurd" or "bosun-plugin-gaurd" or "gaurd" on the registry.'),
    })
  })
})

describe('findOnRegistry: a name no npm package can have', () => {
  it.each([
    ['Word-Guard', 'Package names are lower-case, without spaces: word-guard.'],
    [' guard', 'Package names are lower-case, without spaces: guard.'],
    ['@Bosun/plugin-retry@1.0.0', 'Package names are lower-case, without spaces: @bosun/plugin-retry.'],
    ['acme/guard', 'A scope starts with "@": @acme/guard.'],
    ['@acme', 'A scope needs a name after it: @scope/name.'],
  ])('%j is a usage error, said before the registry is asked', async (spec, hint) => {
    const asked: string[] = []
    const server = createServer((request, response) => {
      asked.push(request.url!)
      response.writeHead(400).end('{}')
    })
    servers.push(server)
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    const client = new RegistryClient({ registry, scopes: new Map(), credentials: new Map(), variables: new Set<string>() })
    const error = await findOnRegistry(client, spec).catch((caught: Error & { code?: string }) => caught)
    expect(error).toMatchObject({ code: 'USAGE', message: expect.stringContaining(hint) })
    expect((error as Error).message).toMatch(/cannot be an npm package name .* Nothing was looked up\.$/)
    expect(asked).toEqual([])
  })
})

// Review V1: on a registry without Bosun's own packages (a company mirror), `bosun plugins add
// retry` fell through to the unrelated npm package "retry" and said it was not a Bosun package.
describe('findOnRegistry: a short name of a plugin the CLI bundles', () => {
  const retry = { name: 'retry', 'dist-tags': { latest: '0.13.1' }, versions: { '0.13.1': { name: 'retry', version: '0.13.1' } } }

  it('not on the registry: says it comes with the CLI and how to name it, not the unrelated package of that name', async () => {
    await expect(findOnRegistry(await registryWith(release, { retry }), 'retry')).rejects.toMatchObject({
      code: 'BUNDLED_WITH_CLI',
      message: 'retry comes with the CLI: no install needed; add it to your config as "retry".',
    })
  })

  it('on the registry: found there as before (a project may pin its own version)', async () => {
    const own = { name: '@bosun/plugin-retry', version: '2.0.0', keywords: ['bosun-plugin'] }
    const client = await registryWith(release, { retry, '@bosun/plugin-retry': { name: '@bosun/plugin-retry', 'dist-tags': { latest: '2.0.0' }, versions: { '2.0.0': own } } })
    expect((await findOnRegistry(client, 'retry')).manifest.name).toBe('@bosun/plugin-retry')
  })
})
