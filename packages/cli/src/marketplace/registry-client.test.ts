// A registry URL with `user:password@` in it: fetch refuses such a URL with a TypeError quoting it
// whole, and the client's error passed that message on — the password reached the terminal. And a
// 401 with a token sent: "add a token" sent the user after one .npmrc already gave. Real HTTP
// servers on 127.0.0.1.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readNpmConfig } from './npm-config.js'
import { RegistryClient } from './registry-client.js'

const PASSWORD = 'hunter2-REGISTRY-PASSWORD'
const config = { registry: 'https://registry.npmjs.org/', scopes: new Map<string, string>(), credentials: new Map(), variables: new Set<string>() }
const servers: Server[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))))
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return (server.address() as AddressInfo).port
}

describe('RegistryClient: a URL with a user name or password', () => {
  it('--registry https://user:password@host is refused without showing the password, and nothing is sent', async () => {
    const seen: IncomingHttpHeaders[] = []
    const port = await serve((request, response) => {
      seen.push(request.headers)
      response.end('{"objects":[]}')
    })
    const client = new RegistryClient(config, `http://bosun:${PASSWORD}@127.0.0.1:${port}`)
    for (const attempt of [client.search('guard'), client.packument('bosun-plugin-guard')]) {
      await expect(attempt).rejects.toMatchObject({
        code: 'REGISTRY_ERROR',
        message: `the registry URL http://127.0.0.1:${port}/ has a user name or password in it (not shown), which is never sent. Remove it from the URL ("registry" in your .npmrc, or --registry) and give the credential in .npmrc: //127.0.0.1:${port}/:_authToken=\${NPM_TOKEN}.`,
      })
    }
    expect(seen).toEqual([])
  })

  it('a redirect to a URL with a password is refused without showing it', async () => {
    const target = await serve((_, response) => response.end('{}'))
    const port = await serve((_, response) => {
      response.writeHead(302, { location: `http://someone:${PASSWORD}@127.0.0.1:${target}/elsewhere` })
      response.end()
    })
    await expect(new RegistryClient(config, `http://127.0.0.1:${port}/`).packument('bosun-plugin-guard')).rejects.toMatchObject({
      code: 'REGISTRY_ERROR',
      message: `the registry redirected to http://127.0.0.1:${target}/ with a user name or password in the URL; refused (not shown). Check the registry, or use another one.`,
    })
  })
})

describe('RegistryClient: a login refused', () => {
  it('says whether a token was sent: none is "add a token", a refused one is "log in again", never shown', async () => {
    const TOKEN = 'npm_REFUSED-TOKEN-value'
    const port = await serve((_, response) => response.writeHead(401).end('{}'))
    const registry = `http://127.0.0.1:${port}/`
    const anonymous = new RegistryClient({ ...config, registry })
    await expect(anonymous.packument('bosun-plugin-guard')).rejects.toMatchObject({
      code: 'REGISTRY_AUTH_REQUIRED',
      message: `${registry} refused bosun-plugin-guard (401): it needs a login. Add a token for it to your .npmrc (npm login --registry ${registry}), or use a registry you can read.`,
    })
    const withToken = new RegistryClient({ ...config, registry, credentials: new Map([[`//127.0.0.1:${port}/`, { token: TOKEN }]]) })
    const error = await withToken.packument('bosun-plugin-guard').catch((caught: Error) => caught)
    expect(error).toMatchObject({
      code: 'REGISTRY_AUTH_REQUIRED',
      message: `${registry} refused bosun-plugin-guard (401) with the token your .npmrc gives for it (not shown): it is expired, revoked or without access to this package. Log in again (npm login --registry ${registry}) or ask for access.`,
    })
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(TOKEN)
  })
})

describe('RegistryClient: a registry that stops part way through its answer', () => {
  it('is REGISTRY_UNREACHABLE naming the registry, not an unexpected "terminated"', async () => {
    // The status line and the first bytes arrive, then the connection is dropped (a proxy or
    // registry restarting): the body's read fails after fetch has resolved.
    const port = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      response.write('{"name":', () => request.socket.destroy())
    })
    const registry = `http://127.0.0.1:${port}/`
    const client = new RegistryClient({ ...config, registry })
    const attempts = [[() => client.packument('bosun-plugin-guard'), 'bosun-plugin-guard'], [() => client.search('guard'), 'search'], [() => client.tarball(`${registry}x.tgz`, 'x@1.0.0'), 'x@1.0.0']] as const
    for (const [attempt, what] of attempts) {
      const error = await attempt().catch((caught: Error) => caught)
      expect(error).toMatchObject({ code: 'REGISTRY_UNREACHABLE' })
      expect((error as Error).message).toMatch(new RegExp(`^the registry at ${registry} stopped answering ${what} part way \\([^)]+\\)\\. Try again; if it keeps happening, check the "registry" in your \\.npmrc \\(or --registry\\) and your network\\.$`))
    }
  })
})

describe('RegistryClient: a token whose ${VAR} is not set', () => {
  it('a 401 names the variable the .npmrc reads, not "add a token" the file already has', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bosun-npmrc-unset-'))
    try {
      const port = await serve((request, response) => response.writeHead(request.headers.authorization === undefined ? 401 : 200).end('{}'))
      const registry = `http://127.0.0.1:${port}/`
      await writeFile(join(dir, 'package.json'), '{}')
      await writeFile(join(dir, '.npmrc'), `registry=${registry}\n//127.0.0.1:${port}/:_authToken=\${ACME_NPM_TOKEN}\n`)
      const client = new RegistryClient(readNpmConfig(dir, { HOME: dir })) // ACME_NPM_TOKEN not set
      await expect(client.packument('bosun-plugin-guard')).rejects.toMatchObject({
        code: 'REGISTRY_AUTH_REQUIRED',
        message: `${registry} refused bosun-plugin-guard (401): it needs a login, and the token your .npmrc gives for it is \${ACME_NPM_TOKEN}, which is not set. Set ACME_NPM_TOKEN where bosun runs (export ACME_NPM_TOKEN=…), or log in (npm login --registry ${registry}).`,
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
