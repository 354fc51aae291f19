import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { listen, type RunningServer } from '../src/index.js'
import { makeHost, perTest } from './helpers.js'

// Security review: listen() took the caller's word (`hasToken`) for whether the host needs a
// token. A host created without `auth` and listened to with `hasToken: true` on 0.0.0.0 served
// every route to the network without credentials — the Host fence does not stop a client that is
// not a browser: it sends `Host: localhost` itself. listen() now asks the host.

const state = perTest()

function getWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, method: 'GET', headers: { host } }, (response) => {
      resolve(response.statusCode ?? 0)
      response.resume()
    })
    r.on('error', reject)
    r.end()
  })
}

async function attempt(listening: Promise<RunningServer>): Promise<unknown> {
  try {
    const server = await listening
    state.closing.push(server)
    // What a client on the network could do with it: the fence is passed by naming loopback.
    return { served: await getWithHost(server.port, '/v1/sessions', 'localhost') }
  } catch (error) {
    return error
  }
}

describe('listen(): a non-loopback bind of a host without a token is refused, whatever hasToken says (review)', () => {
  it('a host created without auth, hasToken: true, on 0.0.0.0 and ::', async () => {
    for (const hostname of ['0.0.0.0', '::']) {
      const { host } = makeHost(state.dir)
      const outcome = await attempt(listen(host, { hostname, port: 0, hasToken: true }))
      expect(outcome, hostname).toMatchObject({ code: 'not-authorized', message: expect.stringContaining('without a token') })
    }
  })

  // Review of eee8f57: the host was recognised by its object only, so a copy of it — spread to
  // add a property, or with its fetch wrapped (logging, metrics) — was taken at hasToken's word.
  it('a copy of such a host, or one with its fetch wrapped, on 0.0.0.0', async () => {
    const { host } = makeHost(state.dir)
    const copies = { spread: { ...host }, 'wrapped fetch': { ...host, fetch: (request: Request) => host.fetch(request) }, 'fetch and close only': { fetch: host.fetch, close: host.close } as unknown as typeof host }
    for (const [name, copy] of Object.entries(copies)) {
      const outcome = await attempt(listen(copy, { hostname: '0.0.0.0', port: 0, hasToken: true }))
      expect(outcome, name).toMatchObject({ code: 'not-authorized', message: expect.stringContaining('without a token') })
    }
  })

  it('a host created with auth still binds where it is told (and loopback needs no token)', async () => {
    const { host } = makeHost(state.dir, undefined, { auth: { token: 'q'.repeat(40) } })
    expect(await attempt(listen(host, { hostname: '0.0.0.0', port: 0, hasToken: true }))).toEqual({ served: 401 })
    const { host: open } = makeHost(state.dir)
    expect(await attempt(listen(open, { hostname: '127.0.0.1', port: 0, hasToken: true }))).toEqual({ served: 200 })
  })
})
