// The login cookie is `Secure` whenever the request did not stay on this machine: over TLS, or
// at a non-loopback address of the host (a LAN bind, 0.0.0.0 reached over the network). A
// browser then never sends it over plain HTTP across a network. On loopback (the default bind, a
// proxy on the same machine) it stays without, so a browser on http://127.0.0.1 can keep it.
// Real HTTP requests through listen(), reading Set-Cookie.
import { request } from 'node:http'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { makeHost, perTest, req } from './helpers.js'

const t = perTest()
const TOKEN = 'c'.repeat(40)

async function serve(hostname: string): Promise<number> {
  const { host } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
  const server = await listen(host, { hostname, port: 0, hasToken: true })
  t.closing.push(server)
  return server.port
}

/** A POST over a real socket to `address` (the client's view of the host), with its Set-Cookie. */
function post(address: string, port: number, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; setCookie: string | undefined }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const r = request({ host: address, port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } }, (response) => {
      response.resume()
      response.on('end', () => resolve({ status: response.statusCode ?? 0, setCookie: response.headers['set-cookie']?.join('\n') }))
    })
    r.on('error', reject)
    r.end(text)
  })
}

/** An address of this machine that is not loopback: what a client on the network connects to. */
function networkAddress(): string {
  const address = Object.values(networkInterfaces()).flat().find((a) => a !== undefined && !a.internal && a.family === 'IPv4')
  if (address === undefined) throw new Error('This test needs a network interface with an IPv4 address besides loopback (os.networkInterfaces()).')
  return address.address
}

/** Logs in at `address`, checks the cookie works there, logs out: both Set-Cookie headers. */
async function loginAndOut(address: string, port: number): Promise<{ login: string; logout: string }> {
  const login = await post(address, port, '/v1/login', { token: TOKEN })
  expect(login.status).toBe(200)
  expect(login.setCookie).toMatch(/^bosun_host=[\w-]+; HttpOnly; SameSite=Strict; Path=\/v1; Max-Age=43200/)
  const jar = login.setCookie!.split(';')[0]!
  const logout = await post(address, port, '/v1/logout', {}, { cookie: jar })
  expect(logout.status).toBe(200)
  expect(logout.setCookie).toMatch(/^bosun_host=; HttpOnly; SameSite=Strict; Path=\/v1; Max-Age=0/)
  return { login: login.setCookie!, logout: logout.setCookie! }
}

const secure = (cookie: string) => cookie.split(';').map((part) => part.trim()).includes('Secure')

describe('host: the login cookie\'s Secure flag', () => {
  it('bound to loopback (the default): not Secure, so http://127.0.0.1 can keep it', async () => {
    const port = await serve('127.0.0.1')
    const { login, logout } = await loginAndOut('127.0.0.1', port)
    expect(secure(login)).toBe(false)
    expect(secure(logout)).toBe(false)
  })

  it('bound to 0.0.0.0 and reached at a network address: Secure, login and logout alike', async () => {
    const port = await serve('0.0.0.0')
    const { login, logout } = await loginAndOut(networkAddress(), port)
    expect(secure(login)).toBe(true)
    expect(secure(logout)).toBe(true)
  })

  it('bound to 0.0.0.0 or :: and reached at loopback (a browser or a proxy on the same machine): not Secure', async () => {
    for (const hostname of ['0.0.0.0', '::']) {
      const port = await serve(hostname)
      // Through `::`, an IPv4 connection arrives at ::ffff:127.0.0.1.
      const { login } = await loginAndOut('127.0.0.1', port)
      expect(secure(login), hostname).toBe(false)
    }
  })

  it('over TLS (an https URL: the embedder\'s TLS server around host.fetch): Secure', async () => {
    const { host } = makeHost(t.dir, undefined, { auth: { token: TOKEN } })
    t.closing.push(host)
    const login = await host.fetch(new Request('https://bosun.example/v1/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: TOKEN }) }))
    expect(secure(login.headers.get('set-cookie')!)).toBe(true)
    const plain = await req(host, 'POST', '/v1/login', { token: TOKEN })
    expect(secure(plain.headers.get('set-cookie')!)).toBe(false)
  })
})
