// Security review: what anthropic() is given from code (a config file's values are checked for
// secrets before it) never comes back in an error, and a base URL with user:password@ is refused
// before any request — fetch would refuse it on every request, quoting the URL whole.
import { serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropic } from './adapter.js'
import { ask, collect, KEY_ENV } from './testing/helpers.js'
import { fakeServer, stream, type FakeServer } from './testing/server.js'

// Checked by its first 8 characters: an error cut at 40 characters may keep only a piece of it.
// Looked for by its first 8 characters: a message cut at 40 characters may keep only a piece of it.
const PASSWORD = 'pw-Q7fK2mX9vR4tL8nB'
const PASTED_KEY = 'sk-ant-api03-Zt5Yq8Wd2Kp7Hs4Jm9Lc'

let server: FakeServer
beforeAll(async () => {
  server = await fakeServer()
})
afterAll(async () => {
  await server.close()
})

/** Everything of an error a user or a log could see. */
function shown(error: unknown): string {
  return `${(error as Error).message}\n${JSON.stringify(serializeError(error))}\n${inspect(error, { depth: 10 })}`
}

function refusal(options: object): unknown {
  try {
    anthropic({ model: 'claude-test', apiKeyEnv: KEY_ENV, ...options } as never)
  } catch (error) {
    return error
  }
  throw new Error(`anthropic(${JSON.stringify(options)}) was accepted`)
}

describe('anthropic(): option errors never quote a credential (review)', () => {
  it('refuses a baseURL with user:password@ before any request, without quoting it', async () => {
    const withUserinfo = server.baseURL.replace('http://', `http://user:${PASSWORD}@`)
    const error = refusal({ baseURL: withUserinfo })
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.baseURL' } })
    expect(shown(error)).toContain('no user:password@')
    expect(shown(error)).not.toContain(PASSWORD.slice(0, 8))
    // The same server without the userinfo works: what is refused is the credential, not the server.
    server.reply(stream(['event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":1,"output_tokens":0}}}\n\n', 'event: message_stop\ndata: {"type":"message_stop"}\n\n']))
    const ok = await collect(anthropic({ model: 'claude-test', baseURL: server.baseURL, apiKeyEnv: KEY_ENV }).stream(ask(), { signal: new AbortController().signal }))
    expect(ok.error).toBeUndefined()
    expect(server.requests).toHaveLength(1)
  })

  it('does not quote a baseURL without a scheme that may hold a credential; quotes a plain one', () => {
    expect(shown(refusal({ baseURL: `user:${PASSWORD}@api.example.com` }))).not.toContain(PASSWORD.slice(0, 8))
    expect(shown(refusal({ baseURL: `api.example.com/?key=${PASSWORD}` }))).not.toContain(PASSWORD.slice(0, 8))
    expect((refusal({ baseURL: 'api.anthropic.com' }) as Error).message).toContain('(found "api.anthropic.com")')
  })

  it('does not quote a key pasted into apiKeyEnv', () => {
    const error = refusal({ apiKeyEnv: PASTED_KEY })
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.apiKeyEnv' } })
    expect(shown(error)).not.toContain(PASTED_KEY.slice(0, 16))
    // nor a weak one, which no pattern takes for a key: the formatter hides every value under a …Env key
    expect(shown(refusal({ apiKeyEnv: 'hunter2 now' }))).not.toContain('hunter2')
  })

  it('does not quote a header value that fetch would refuse (a key with a stray line break or NUL)', () => {
    for (const value of [`${PASTED_KEY}\nX`, 'hunter2\nX', 'hunter2\u0000']) {
      const error = refusal({ headers: { 'x-proxy-key': value } })
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.headers["x-proxy-key"]' } })
      expect((error as Error).message).toContain('$.headers["x-proxy-key"]: must be ')
      expect(shown(error)).not.toContain(PASTED_KEY.slice(0, 16))
      expect(shown(error)).not.toContain('hunter2')
    }
  })
})
