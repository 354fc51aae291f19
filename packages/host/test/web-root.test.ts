import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listen, type RunningServer } from '../src/index.js'
import { json, makeHost, req, tempDir } from './helpers.js'

const INDEX = '<!doctype html><title>Bosun</title><script type="module" src="/assets/app-3f2a9c.js"></script>'
const SECRET = 'outside the web root: never served'

let cleanup: () => Promise<void>
let root: string
let dir: string
let server: RunningServer
let host: ReturnType<typeof makeHost>['host']

beforeAll(async () => {
  ;({ dir, cleanup } = await tempDir())
  root = join(dir, 'web')
  await mkdir(join(root, 'assets'), { recursive: true })
  await writeFile(join(root, 'index.html'), INDEX)
  await writeFile(join(root, 'assets', 'app-3f2a9c.js'), 'console.log("app")')
  await writeFile(join(root, 'assets', 'app-3f2a9c.css'), 'body{}')
  await writeFile(join(root, 'favicon.svg'), '<svg/>')
  await writeFile(join(root, '.env'), SECRET)
  await writeFile(join(dir, 'secret.txt'), SECRET)
  await symlink(join(dir, 'secret.txt'), join(root, 'link.txt'))
  ;({ host } = makeHost(join(dir, 'sessions'), () => [], { webRoot: root }))
  server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
})

afterAll(async () => {
  await server?.close()
  await cleanup()
})

/** Sends a request line as written (no client-side path normalisation) and answers the raw reply. */
function rawGet(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`))
    let reply = ''
    socket.on('data', (d) => { reply += d.toString('utf8') })
    socket.on('end', () => resolve(reply))
    socket.on('error', reject)
  })
}

describe('webRoot: the web UI served at /', () => {
  it('serves index.html at / and for client routes, uncached, with a same-origin CSP', async () => {
    for (const path of ['/', '/sessions/web-1', '/settings']) {
      const response = await req(host, 'GET', path)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('cache-control')).toBe('no-cache')
      expect(await response.text()).toBe(INDEX)
      const csp = response.headers.get('content-security-policy')!
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).not.toMatch(/script-src[^;]*unsafe/)
      expect(csp).toContain("frame-ancestors 'none'")
      expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('serves hashed assets as immutable with their content types', async () => {
    const js = await req(host, 'GET', '/assets/app-3f2a9c.js')
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(await js.text()).toBe('console.log("app")')
    const css = await req(host, 'GET', '/assets/app-3f2a9c.css')
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const svg = await req(host, 'GET', '/favicon.svg')
    expect(svg.headers.get('content-type')).toBe('image/svg+xml')
    expect(svg.headers.get('cache-control')).toBe('no-cache')
  })

  it('answers 404 for a missing asset, and never answers /v1 with the app', async () => {
    expect((await req(host, 'GET', '/assets/app-old.js')).status).toBe(404)
    const api = await req(host, 'GET', '/v1/no-such-route')
    expect(api.status).toBe(404)
    expect((await json(api)).error.code).toBe('not-found')
    expect((await json(req(host, 'GET', '/v1/host'))).protocol).toBe('bosun-host/1')
  })

  it('refuses paths that leave the root or reach hidden files, in-process and over a real socket', async () => {
    for (const path of ['/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/assets/%2e%2e%5c..%5csecret.txt', '/.env', '/link.txt', '/%00index.html']) {
      const response = await req(host, 'GET', path)
      expect(response.status, path).toBe(404)
      expect(await response.text(), path).not.toContain(SECRET)
    }
    for (const path of ['/../secret.txt', '/../../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt']) {
      const reply = await rawGet(server.port, path)
      expect(reply, path).not.toContain(SECRET)
      expect(reply.split('\r\n')[0], path).toMatch(/^HTTP\/1\.1 (404|400)/)
    }
  })

  it('serves the page without the token while the API still requires it', async () => {
    const token = 'x'.repeat(40)
    const guarded = makeHost(join(dir, 'guarded'), () => [], { webRoot: root, auth: { token } }).host
    expect((await req(guarded, 'GET', '/')).status).toBe(200)
    expect((await req(guarded, 'GET', '/assets/app-3f2a9c.js')).status).toBe(200)
    expect((await req(guarded, 'GET', '/v1/sessions')).status).toBe(401)
    expect((await req(guarded, 'GET', '/v1/sessions', undefined, { authorization: `Bearer ${token}` })).status).toBe(200)
    await guarded.close()
  })

  it('refuses a webRoot without index.html at creation', async () => {
    expect(() => makeHost(join(dir, 'other'), () => [], { webRoot: join(dir, 'sessions') })).toThrow(/webRoot.*index\.html/)
  })
})
