// Review V2: the host's bearer token is a registered secret from createHost() on — `bosun serve`'s
// token comes from a --token-file, which registerSecretsFromEnv cannot know — so a log line or an
// error answer quoting it (an agent factory or plugin calling this host back, whose error quotes
// the Authorization header it sent) shows it masked.
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { BosunError } from '@bosun/core'
import { jsonlStore } from '@bosun/plugin-store-jsonl'
import { createHost, listen } from '../src/index.js'
import { perTest } from './helpers.js'

const t = perTest()

afterEach(() => {
  vi.restoreAllMocks()
})

/** A host with a fresh token (never registered before), whose agent factory fails quoting it in a header. */
async function hostQuotingItsToken(error: (header: string) => Error): Promise<{ url: string; token: string }> {
  const token = randomBytes(24).toString('hex')
  const header = `authorization: Bearer ${token}`
  const host = createHost({ store: jsonlStore({ dir: t.dir }), auth: { token }, agentFactory: () => Promise.reject(error(header)) })
  const server = await listen(host, { hostname: '127.0.0.1', port: 0, hasToken: true })
  t.closing.push(server)
  return { url: server.url, token }
}

const createSession = (url: string, token: string) =>
  fetch(`${url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' })

describe("the host's token is masked", () => {
  it("in the host's log of a failed request", async () => {
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const { url, token } = await hostQuotingItsToken((header) => new Error(`POST http://127.0.0.1/v1/sessions/parent/messages failed (sent ${header})`))
    const response = await createSession(url, token)
    expect(response.status).toBe(500)
    expect(await response.text()).not.toContain(token)
    expect(logged.join('\n')).toContain('(sent authorization: Bearer [redacted])')
    expect(logged.join('\n')).not.toContain(token)
  })

  it('in an error answer', async () => {
    const { url, token } = await hostQuotingItsToken((header) => new BosunError('INVALID_ARGUMENT', `the parent session refused (sent ${header})`))
    const response = await createSession(url, token)
    const text = await response.text()
    expect(response.status).toBe(400)
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'invalid-request', message: 'the parent session refused (sent authorization: Bearer [redacted])' } })
    expect(text).not.toContain(token)
  })
})
