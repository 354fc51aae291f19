import { BosunError } from '@bosun/core'
import { validateConfig } from '@bosun/core/config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import definition, { anthropic } from './index.js'
import { ask, collect, KEY_ENV, model, SECRET, serverAt } from './testing/helpers.js'
import { fakeServer, status, type FakeServer } from './testing/server.js'

// The errors a newcomer meets pointing the adapter at a proxy or a local server: each says where,
// what was expected and what to set.

let server: FakeServer
beforeAll(async () => {
  server = await fakeServer()
})
afterAll(() => server.close())

const run = (baseURL: string) => collect(model(baseURL).stream(ask(), { signal: new AbortController().signal }))
const notFound = status(404, '{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}')

describe('a refused connection', () => {
  it('names the baseURL and says to check it; a credential in its query is not shown, nor the key', async () => {
    // Port 0: nothing can listen on it (binding 0 asks for any free port), so the connection is
    // refused every time — a port a closed server had could be taken by another process meanwhile.
    const baseURL = 'http://127.0.0.1:0'
    const { error } = await run(`${baseURL}/?token=hush-4242`)
    expect(error).toMatchObject({ code: 'TRANSPORT', retryable: true })
    expect(error!.message).toContain(`Nothing answered at ${baseURL}: the connection was refused`)
    expect(error!.message).toContain("Check the adapter's baseURL: is the server running, and listening at that host and port?")
    expect(error!.message).not.toContain('hush-4242')
    expect(error!.message).not.toContain(SECRET)
  })
})

describe('a port fetch refuses (one browsers block as unsafe)', () => {
  it('says the port is the problem and what to do, not retryable', async () => {
    const baseURL = 'http://127.0.0.1:10080'
    const { error } = await run(baseURL)
    expect(error).toMatchObject({ code: 'TRANSPORT', retryable: false })
    expect(error!.message).toContain(`Node's fetch refuses to connect to ${baseURL}: port 10080 is one of the ports browsers block as unsafe`)
    expect(error!.message).not.toContain(SECRET)
  })
})

describe('a 404 says what is wrong with the path', () => {
  it('a baseURL ending in /v1: the path has /v1 twice, set baseURL without it', async () => {
    server.reply(notFound)
    const { error } = await run(`${server.baseURL}/v1`)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(server.requests.at(-1)!.path).toBe('/v1/v1/messages')
    expect(error!.message).toContain(`POST ${server.baseURL}/v1/v1/messages has /v1 twice: the adapter adds /v1/messages itself, so set baseURL to ${server.baseURL})`)
  })

  it('the documented path answering 404: check baseURL and the model', async () => {
    server.reply(notFound)
    const { error } = await run(server.baseURL)
    expect(server.requests.at(-1)!.path).toBe('/v1/messages')
    expect(error!.message).toContain(`POST ${server.baseURL}/v1/messages was not found: check baseURL (${server.baseURL}) — without /v1 — and the model name`)
    expect(error!.message).not.toContain('twice')
  })

  // U3 walk: a misspelt model was told "POST … was not found: check baseURL — without /v1 — and the
  // model name", though Anthropic's words name the model and the path was found.
  it("Anthropic's not_found_error naming the model: check the model name, the path was right", async () => {
    server.reply(status(404, '{"type":"error","error":{"type":"not_found_error","message":"model: claude-test"}}'))
    const { error } = await run(server.baseURL)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 404 })
    expect(error!.message).toContain(`model: claude-test (the server does not know the model "claude-test": check the model name — POST ${server.baseURL}/v1/messages answered, so baseURL is right)`)
    expect(error!.message).not.toMatch(/was not found|twice/)
  })
})

describe('a baseURL without a scheme', () => {
  const LINE = '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. "https://api.anthropic.com" (found "api.anthropic.com")'

  it('in a config file: a plain sentence naming the option, not a regular expression', async () => {
    const config = { model: { adapter: definition, options: { model: 'm', apiKeyEnv: KEY_ENV, baseURL: 'api.anthropic.com' } } }
    const error = await validateConfig({ config, file: undefined, dir: process.cwd() }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    const message = (error as Error).message
    expect(message).toContain(`  - $.model.options${LINE.slice(1).replace(': ', ' (adapter "anthropic"): ')}`)
    expect(message).not.toMatch(/pattern|\^https/)
  })

  it('in code: the same sentence', () => {
    expect(() => anthropic({ model: 'm', apiKeyEnv: KEY_ENV, baseURL: 'api.anthropic.com' })).toThrow(`Invalid options for anthropic():\n  - ${LINE}`)
  })
})

describe('a 401 with a key sent names the variable it came from, never the key', () => {
  const unauthorized = status(401, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}')

  it('a variable named with apiKeyEnv: its name, that apiKeyEnv named it, and the server', async () => {
    server.reply(unauthorized)
    const { error } = await run(server.baseURL)
    expect(error).toMatchObject({ code: 'AUTH', status: 401 })
    expect(error!.message).toBe(`${serverAt(server.baseURL)} answered HTTP 401: invalid x-api-key (check that the environment variable ${KEY_ENV}, named by apiKeyEnv, holds a valid key for ${server.baseURL})`)
    expect(error!.message).not.toContain(SECRET)
  })
})
