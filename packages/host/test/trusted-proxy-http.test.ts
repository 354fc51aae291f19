// Behind a reverse proxy on the same machine (TLS in the proxy, forwarding to 127.0.0.1) every
// client came from the proxy's address: one client's ten wrong logins locked every other client
// out, they shared one limits.streamsPerClient, and the login cookie lacked Secure although the
// browser talked https. `trustedProxies` names the proxy, whose X-Forwarded-For / -Proto the host
// then believes; from any other peer those headers change nothing. Real HTTP on 127.0.0.x: clients
// on 127.0.0.2 and 127.0.0.3, a proxy (forwarding-proxy.ts) that reaches the host from 127.0.0.1.
import { describe, expect, it } from 'vitest'
import { listen, type CreateHostOptions } from '../src/index.js'
import { forwardingProxy } from './forwarding-proxy.js'
import { requestFrom } from './from-address.js'
import { json, makeHost, perTest, SseReader } from './helpers.js'
import { opened } from './stream-helpers.js'

const t = perTest()
const TOKEN = 'a-token-of-32-random-characters!!'

/** A host on 127.0.0.1 and, when `proto` is given, a proxy in front of it: the URL clients use. */
async function serve(extra: Partial<CreateHostOptions>, proto?: 'http' | 'https'): Promise<{ host: string; front: string }> {
  const { host } = makeHost(t.dir, undefined, extra)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: extra.auth !== undefined })
  t.closing.push(server)
  if (proto === undefined) return { host: server.url, front: server.url }
  const proxy = await forwardingProxy(server.url, { proto })
  t.closing.push(proxy)
  return { host: server.url, front: proxy.url }
}

const login = (from: string, url: string, token: string, headers: Record<string, string> = {}) => requestFrom(from, `${url}/v1/login`, { method: 'POST', json: { token }, headers })

/** Ten wrong logins from `from`: its minute's attempts spent. Each names another forwarded-for client, which must not matter. */
async function spendAttempts(from: string, url: string): Promise<void> {
  for (let i = 0; i < 10; i++) expect((await login(from, url, `guess-${i}`, { 'x-forwarded-for': `198.51.100.${i}` })).status).toBe(401)
  const limited = await login(from, url, TOKEN, { 'x-forwarded-for': '198.51.100.99' })
  expect(limited.status).toBe(429)
  expect((await json(limited)).error.code).toBe('too-many-requests')
}

/** Whether the answer's login cookie is Secure (it must have one). */
function secure(response: Response): boolean {
  const cookie = response.headers.get('set-cookie')
  expect(cookie).toMatch(/^bosun_host=/)
  return cookie!.split(';').map((part) => part.trim()).includes('Secure')
}

describe('host behind a trusted reverse proxy (trustedProxies)', () => {
  it('each client of the proxy has its own login lock-out, and what a client writes in X-Forwarded-For does not get it out of its own', async () => {
    const { front } = await serve({ auth: { token: TOKEN }, trustedProxies: ['127.0.0.1'] }, 'https')
    await spendAttempts('127.0.0.2', front)
    const other = await login('127.0.0.3', front, TOKEN)
    expect(other.status).toBe(200)
    expect(await json(other)).toMatchObject({ loggedIn: true })
  })

  it('the cookie is Secure when the proxy says the browser came over https, and not when it says http', async () => {
    const tls = await serve({ auth: { token: TOKEN }, trustedProxies: ['127.0.0.1'] }, 'https')
    const overTls = await login('127.0.0.2', tls.front, TOKEN)
    expect(overTls.status).toBe(200)
    expect(secure(overTls)).toBe(true)
    // Logout carries the same attributes: a browser lets only a Secure Set-Cookie replace a Secure cookie.
    const out = await requestFrom('127.0.0.2', `${tls.front}/v1/logout`, { method: 'POST', json: {}, headers: { cookie: overTls.headers.get('set-cookie')!.split(';')[0]! } })
    expect(out.status).toBe(200)
    expect(secure(out)).toBe(true)

    const plain = await serve({ auth: { token: TOKEN }, trustedProxies: ['127.0.0.0/8'] }, 'http')
    const overHttp = await login('127.0.0.2', plain.front, TOKEN)
    expect(overHttp.status).toBe(200)
    expect(secure(overHttp)).toBe(false)
  })

  it('each client of the proxy holds its own limits.streamsPerClient', async () => {
    const { front } = await serve({ limits: { streams: 10, streamsPerClient: 1 }, trustedProxies: ['127.0.0.1'] }, 'https')
    const controller = new AbortController()
    const readers: SseReader[] = [await opened(await requestFrom('127.0.0.2', `${front}/v1/stream`, { signal: controller.signal }))]
    const refused = await requestFrom('127.0.0.2', `${front}/v1/stream`, { signal: controller.signal, headers: { 'x-forwarded-for': '203.0.113.9' } })
    expect(refused.status).toBe(429)
    expect((await json(refused)).error.code).toBe('too-many-client-streams')
    readers.push(await opened(await requestFrom('127.0.0.3', `${front}/v1/stream`, { signal: controller.signal })))
    for (const reader of readers) await reader.cancel()
    controller.abort()
  })
})

describe('forwarded headers from a peer that is not a trusted proxy change nothing', () => {
  it('by default (no trustedProxies) the proxy\'s clients share its address: one lock-out for all, no Secure', async () => {
    const { front } = await serve({ auth: { token: TOKEN } }, 'https')
    await spendAttempts('127.0.0.2', front)
    expect((await login('127.0.0.3', front, TOKEN)).status).toBe(429)
    const another = await serve({ auth: { token: TOKEN } }, 'https')
    const loggedIn = await login('127.0.0.3', another.front, TOKEN)
    expect(loggedIn.status).toBe(200)
    expect(secure(loggedIn)).toBe(false)
  })

  it('a client that writes X-Forwarded-For and X-Forwarded-Proto itself is still its own address, and gets no Secure cookie', async () => {
    // The host trusts 127.0.0.1; these clients connect straight from 127.0.0.2 and 127.0.0.3.
    const { host } = await serve({ auth: { token: TOKEN }, trustedProxies: ['127.0.0.1'] })
    await spendAttempts('127.0.0.2', host)
    // Naming a trusted proxy, or another client, in the headers does not help either.
    expect((await login('127.0.0.2', host, TOKEN, { 'x-forwarded-for': '127.0.0.3, 127.0.0.1' })).status).toBe(429)
    const spoofed = await login('127.0.0.3', host, TOKEN, { 'x-forwarded-for': '192.0.2.1', 'x-forwarded-proto': 'https' })
    expect(spoofed.status).toBe(200)
    expect(secure(spoofed)).toBe(false)
  })
})
