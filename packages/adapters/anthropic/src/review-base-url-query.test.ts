// A baseURL with a query string: anthropic() appended /v1/messages after the query
// (`/?api-version=1/v1/messages`), so the request went to the server's root; a fragment (never
// sent) was accepted, and an unparsable URL was only found by the first request.
import { createAdapter, serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropic } from './adapter.js'
import definition from './index.js'
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

  it('refuses a #fragment without quoting it, by the schema: the same line from code and through createAdapter', async () => {
    const baseURL = `${server.baseURL}#access_token=${TOKEN}`
    const error = refusal(baseURL)
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.baseURL' } })
    const line = '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment)'
    expect((error as Error).message).toContain(line)
    expect(shown(error)).not.toContain(TOKEN.slice(0, 8))
    const viaDefinition = await createAdapter(definition, { model: 'claude-test', apiKeyEnv: KEY_ENV, baseURL }).catch((e: unknown) => e)
    expect(viaDefinition).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths: '$.baseURL' } })
    expect((viaDefinition as Error).message).toContain(line)
    expect(shown(viaDefinition)).not.toContain(TOKEN.slice(0, 8))
  })

  it('refuses an unparsable URL at creation: quoted when plain, not when it may hold a credential', () => {
    expect(refusal('http://exa_mple:99999')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Invalid options for anthropic():\n  - $.baseURL: must be a URL that parses (a valid host and port), e.g. "https://api.anthropic.com" (found "http://exa_mple:99999")',
    })
    expect((refusal('https://exa mple.com') as Error).message).toContain('(found "https://exa mple.com")')
    expect(shown(refusal(`https://exa mple.com/?key=${TOKEN}`))).not.toContain(TOKEN.slice(0, 8))
    expect(shown(refusal(`http://exa_mple:99999/?key=${TOKEN}`))).not.toContain(TOKEN.slice(0, 8))
  })
})
