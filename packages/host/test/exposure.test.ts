import { request } from 'node:http'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isLoopback, listen, type RunningServer } from '../src/index.js'
import { makeHost, tempDir } from './helpers.js'

let dir: string
let cleanup: () => Promise<void>
const servers: RunningServer[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
})
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
  await cleanup()
})

const TOKEN = 't'.repeat(40)

/** GET through a real socket with any Host header (fetch would set its own). */
function getWithHost(port: number, path: string, host: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host, ...headers } }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { body += chunk })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    r.on('error', reject)
    r.end()
  })
}

async function serve(extra: Parameters<typeof makeHost>[2]): Promise<RunningServer> {
  const { host } = makeHost(dir, undefined, extra)
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: extra?.auth !== undefined })
  servers.push(server)
  return server
}

describe('host: the Host fence', () => {
  it('one loopback definition: localhost, all of 127.0.0.0/8 and ::1', () => {
    for (const name of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]']) expect(isLoopback(name), name).toBe(true)
    for (const name of ['0.0.0.0', '192.168.1.20', '128.0.0.1', 'localhost.evil.example', '127.0.0.1.evil.example']) expect(isLoopback(name), name).toBe(false)
  })

  it('with a token, answers a request that reached it by a LAN address (bosun serve --host 0.0.0.0)', async () => {
    const { port } = await serve({ auth: { token: TOKEN } })
    const lan = await getWithHost(port, '/v1/host', `192.168.1.20:${port}`, { authorization: `Bearer ${TOKEN}` })
    expect(lan.status).toBe(200)
    expect(JSON.parse(lan.body).protocol).toBe('bosun-host/1')
    // A rebound page has no token: it is refused by auth, not served.
    const rebound = await getWithHost(port, '/v1/sessions', `evil.example:${port}`)
    expect(rebound.status).toBe(401)
  })

  it('without a token, refuses every name but loopback and the allowed ones (DNS rebinding)', async () => {
    const { port } = await serve({ allowedHosts: ['bosun.internal'] })
    expect((await getWithHost(port, '/v1/host', `127.0.0.2:${port}`)).status).toBe(200)
    expect((await getWithHost(port, '/v1/host', `localhost:${port}`)).status).toBe(200)
    expect((await getWithHost(port, '/v1/host', 'bosun.internal')).status).toBe(200)
    const rebound = await getWithHost(port, '/v1/host', `evil.example:${port}`)
    expect(rebound.status).toBe(403)
    expect(JSON.parse(rebound.body).error.code).toBe('forbidden-origin')
    expect((await getWithHost(port, '/v1/host', `192.168.1.20:${port}`)).status).toBe(403)
  })

  it('each refusal says how to allow the request: the createHost option and its bosun serve flag', async () => {
    const { port } = await serve({})
    const foreignHost = await getWithHost(port, '/v1/host', `evil.example:${port}`)
    expect(foreignHost.status).toBe(403)
    expect(JSON.parse(foreignHost.body).error.message).toMatch(/allowedHosts \(bosun serve --allowed-host <name>\)/)
    const foreignOrigin = await getWithHost(port, '/v1/host', `127.0.0.1:${port}`, { origin: 'https://app.example.com' })
    expect(foreignOrigin.status).toBe(403)
    expect(JSON.parse(foreignOrigin.body).error).toMatchObject({ code: 'forbidden-origin', message: expect.stringMatching(/cors\.origins \(bosun serve --cors <origin>\)/) })
  })

  it('with a token and allowed names, the fence holds as a second line', async () => {
    const { port } = await serve({ auth: { token: TOKEN }, allowedHosts: ['bosun.internal'] })
    const auth = { authorization: `Bearer ${TOKEN}` }
    expect((await getWithHost(port, '/v1/host', `bosun.internal:${port}`, auth)).status).toBe(200)
    expect((await getWithHost(port, '/v1/host', `127.0.0.1:${port}`, auth)).status).toBe(200)
    expect((await getWithHost(port, '/v1/host', `192.168.1.20:${port}`, auth)).status).toBe(403)
  })
})
