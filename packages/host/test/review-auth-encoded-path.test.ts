import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { listen } from '../src/index.js'
import { ROUTES } from '../src/openapi.js'
import { makeHost, perTest } from './helpers.js'

// Security review: the router matches a path after percent-decoding it (`/%761/sessions` is
// `/v1/sessions` to Hono), so the check that decides whether a request needs the token must look
// at the same path. Real sockets: fetch and Request keep the raw path, but a test must send exactly
// the bytes an attacker would.

const state = perTest()

const TOKEN = 'k'.repeat(40)

/** The status of a request sent as written (its path not normalised); a stream is not read past its headers. */
function statusOf(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const body = method === 'GET' || method === 'DELETE' ? undefined : '{}'
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }, (response) => {
      resolve(response.statusCode ?? 0)
      response.destroy()
    })
    r.on('error', reject)
    r.end(body)
  })
}

/** Spellings of `path` the router takes for it: `v1`'s letters, and the next segment's first letter, percent-encoded. */
function encodedSpellings(path: string): string[] {
  const hex = (char: string): string => `%${char.charCodeAt(0).toString(16)}`
  const rest = path.slice('/v1/'.length)
  return [`/${hex('v')}1/${rest}`, `/v${hex('1')}/${rest}`, `/${hex('v')}${hex('1')}/${rest}`, `/v1/${hex(rest[0]!)}${rest.slice(1)}`]
}

const concrete = (path: string): string => path.replace('{id}', 's-1').replace('{messageId}', 'm-1')

async function serve(): Promise<{ port: number }> {
  const { host } = makeHost(state.dir, undefined, { auth: { token: TOKEN } })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  state.closing.push(server)
  return server
}

describe('host auth: percent-encoded API paths (review)', () => {
  it('every API route but login needs the token however its path is spelled', async () => {
    const server = await serve()
    const answered: string[] = []
    for (const route of ROUTES) {
      if (route.path === '/v1/login') continue
      for (const path of encodedSpellings(concrete(route.path))) {
        const status = await statusOf(server.port, route.method.toUpperCase(), path)
        if (status !== 401) answered.push(`${route.method.toUpperCase()} ${path}: ${status}`)
      }
    }
    expect(answered).toEqual([])
  })

  it('the encoded spelling is routed: with the token it is answered like the plain one', async () => {
    const server = await serve()
    const bearer = { authorization: `Bearer ${TOKEN}` }
    for (const path of encodedSpellings('/v1/sessions')) expect(await statusOf(server.port, 'GET', path, bearer), path).toBe(200)
    expect(await statusOf(server.port, 'GET', '/v1/sessions')).toBe(401)
  })
})
