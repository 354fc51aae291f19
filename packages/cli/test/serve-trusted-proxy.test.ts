// `bosun serve --trusted-proxy <address>`: the host believes X-Forwarded-For / -Proto from that
// proxy only. The test plays the proxy from 127.0.0.1 and a client that writes the same headers
// from 127.0.0.2; the login cookie's Secure says whose were believed.
import { request } from 'node:http'
import { describe, expect } from 'vitest'
import { bosun, finished, it, requireBuild, start, waitFor } from './helpers.js'

requireBuild()

const TOKEN = 't'.repeat(48)

/** A login POSTed from the local address `from`, as a TLS proxy would forward it: its Set-Cookie. */
function loginFrom(from: string, url: string): Promise<string> {
  const body = JSON.stringify({ token: TOKEN })
  return new Promise((resolve, reject) => {
    const sent = request(`${url}/v1/login`, {
      method: 'POST',
      localAddress: from,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': '192.0.2.10', 'x-forwarded-proto': 'https' },
    }, (response) => {
      response.resume()
      expect(response.statusCode).toBe(200)
      resolve(response.headers['set-cookie']?.join('\n') ?? '')
    })
    sent.on('error', reject)
    sent.end(body)
  })
}

const secure = (cookie: string) => cookie.split(';').map((part) => part.trim()).includes('Secure')

describe('bosun serve --trusted-proxy', () => {
  it('believes X-Forwarded-Proto from the named proxy only', async ({ dir }) => {
    const child = start(['serve', '--port', '0', '--trusted-proxy', '127.0.0.1'], { cwd: dir, env: { BOSUN_HOST_TOKEN: TOKEN } })
    await waitFor(() => /listening on http:\/\/\S+/.test(child.output.stdout), 'the URL')
    const url = /listening on (http:\/\/\S+)/.exec(child.output.stdout)![1]!
    const proxied = await loginFrom('127.0.0.1', url)
    expect(proxied).toMatch(/^bosun_host=/)
    expect(secure(proxied)).toBe(true)
    const direct = await loginFrom('127.0.0.2', url)
    expect(direct).toMatch(/^bosun_host=/)
    expect(secure(direct)).toBe(false)
    child.kill('SIGTERM')
    expect((await finished(child)).code).toBe(0)
  })

  it('refuses an entry that is not an address or CIDR block, saying what to write', async ({ dir }) => {
    const bad = await bosun(['serve', '--port', '0', '--trusted-proxy', '127.0.0.1', '10.0.0.0/33'], { cwd: dir, env: { BOSUN_HOST_TOKEN: TOKEN } })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--trusted-proxy must be the IP address of a reverse proxy in front of the host, or a CIDR block of them (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8): the prefix after "/" is a whole number from 1 to 32 for an IPv4 address, got "10.0.0.0/33".')
  })
})
