// A registered secret (an `…Env` variable's value, an adapter's key) never reaches a client's
// error answer nor the host's log, whatever its shape: an agent factory's error quoting a
// word-like key is answered and logged with the key masked.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BosunError, registerSecret } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen } from '../src/index.js'
import { perTest } from './helpers.js'

const t = perTest()
const KEY = 'my-gateway-secret'

afterEach(() => {
  vi.restoreAllMocks()
})

async function failingHost(error: () => Error): Promise<string> {
  registerSecret(KEY)
  const host = createHost({ store: jsonlStore({ dir: t.dir }), agentFactory: () => Promise.reject(error()) })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: false })
  t.closing.push(server)
  return server.url
}

describe('the host masks registered secrets', () => {
  it('in an error answer', async () => {
    const url = await failingHost(() => new BosunError('INVALID_ARGUMENT', `the gateway refused the token ${KEY}`))
    const response = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    const text = await response.text()
    expect(response.status).toBe(400)
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid-request', message: 'the gateway refused the token [redacted]' } })
    expect(text).not.toContain(KEY)
  })

  it("in the host's log of a failed request", async () => {
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const url = await failingHost(() => new Error(`the gateway refused the token ${KEY}`))
    const response = await fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(response.status).toBe(500)
    expect(await response.text()).not.toContain(KEY)
    expect(logged.join('\n')).toContain('the gateway refused the token [redacted]')
    expect(logged.join('\n')).not.toContain(KEY)
  })
})
