// A baseURL with a query string: anthropic() appended /v1/messages after the query
// (`/?api-version=1/v1/messages`), so the request went to the server's root; a fragment (never
// sent) was accepted, and an unparsable URL was only found by the first request.
import { serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropic } from './adapter.js'
import { ask, collect, KEY_ENV } from './testing/helpers.js'
import { fakeServer, stream, type FakeServer } from './testing/server.js'

const TOKEN = 'pxy-Q7fK2mX9vR4tL8nB'

let server: FakeServer
beforeAll(async () => {
  server = await fakeServer()
})
afterAll(() => server.close())

const shown = (value: unknown): string => `${(value as Error).message}\n${JSON.stringify(serializeError(value))}\n${inspect(value, { depth: 10 })}`

function refusal(baseURL: string): unknown {
  try {
    anthropic({ model: 'claude-test', apiKeyEnv: KEY_ENV, baseURL })
  } catch (error) {
    return error
  }
  throw new Error(`anthropic({ baseURL: ${JSON.stringify(baseURL)} }) was accepted`)
}

describe('anthropic(): a baseURL with a query string (review)', () => {
  it('keeps the query after /v1/messages, and the adapter object does not show it', async () => {
    server.reply(stream(['event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":0}}}\n\n', 'event: message_stop\ndata: {"type":"message_stop"}\n\n']))
    const adapter = anthropic({ model: 'claude-test', apiKeyEnv: KEY_ENV, baseURL: `${server.baseURL}/?api-version=1&key=${TOKEN}` })
    expect(inspect(adapter, { depth: 10 })).not.toContain(TOKEN.slice(0, 8))
    const result = await collect(adapter.stream(ask(), { signal: new AbortController().signal }))
    expect(result.error).toBeUndefined()
    expect(server.requests.map((request) => request.path)).toEqual([`/v1/messages?api-version=1&key=${TOKEN}`])
  })

  it('refuses a #fragment without quoting it', () => {
    const error = refusal(`${server.baseURL}#access_token=${TOKEN}`)
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'baseURL' } })
    expect((error as Error).message).toContain('must not have a #fragment')
    expect(shown(error)).not.toContain(TOKEN.slice(0, 8))
  })

  it('refuses an unparsable URL at creation: quoted when plain, not when it may hold a credential', () => {
    expect(refusal('https://exa mple.com')).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('must be a valid URL') })
    expect((refusal('https://exa mple.com') as Error).message).toContain('(found "https://exa mple.com")')
    expect(shown(refusal(`https://exa mple.com/?key=${TOKEN}`))).not.toContain(TOKEN.slice(0, 8))
  })
})
