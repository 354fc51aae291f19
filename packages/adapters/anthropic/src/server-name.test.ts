import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropic } from './index.js'
import { ask, collect, KEY_ENV, model, SECRET } from './testing/helpers.js'
import { events, fakeServer, status, stream, type FakeServer } from './testing/server.js'

// A baseURL other than api.anthropic.com (a proxy, a local gateway, another provider's
// Anthropic-compatible API) is not Anthropic: a user debugging a 401 from their gateway was told
// "Anthropic answered HTTP 401". Every message names the server contacted, by its host (never a
// credential: the host only).

let server: FakeServer
let host: string
beforeAll(async () => {
  server = await fakeServer()
  host = new URL(server.baseURL).host
})
afterAll(() => server.close())

const gateway = (options: Parameters<typeof model>[1] = {}) => model(`http://${host}/?key=q-secret`, options)
const run = (options: Parameters<typeof model>[1] = {}) => collect(gateway(options).stream(ask(), { signal: new AbortController().signal }))
const start = { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 1, output_tokens: 0 } } }

/** The message, checked not to name Anthropic as the server nor show a credential or the path. */
function said(message: string | undefined): string {
  expect(message).toBeDefined()
  for (const hidden of ['q-secret', SECRET]) expect(message).not.toContain(hidden)
  expect(message).not.toMatch(/^Anthropic|to Anthropic|from Anthropic|Anthropic's HTTP|than Anthropic accepts/)
  return message!
}

describe('a server other than api.anthropic.com is named by its host', () => {
  it('an HTTP 401 from a gateway', async () => {
    server.reply(status(401, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'))
    const { error } = await run()
    expect(error).toMatchObject({ code: 'AUTH', status: 401 })
    expect(said(error?.message)).toMatch(new RegExp(`^The server at ${host.replace(/\./g, '\\.')} answered HTTP 401: invalid x-api-key \\(check that the environment variable ${KEY_ENV}`))
  })

  it('an error event in the stream, a malformed event, a cut stream, an empty answer', async () => {
    server.reply(events([start, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]))
    expect(said((await run()).error?.message)).toBe(`The server at ${host} reported overloaded_error in the stream: Overloaded (as HTTP 529).`)

    server.reply(events([start, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } }]))
    expect(said((await run()).error?.message)).toBe(`The server at ${host} sent a malformed stream event: a delta for content block 0, which was never started.`)

    server.reply(events([start]))
    expect(said((await run()).error?.message)).toBe(`The server at ${host} closed the stream before the message was complete (no stop_reason): the response may be incomplete.`)

    server.reply(stream(['data: {not json}\n\n']))
    expect(said((await run()).error?.message)).toMatch(new RegExp(`^The server at ${host.replace(/\./g, '\\.')} sent an event whose data is not JSON`))

    server.reply(status(200, '{"id":"msg_1"}', { 'content-type': 'application/json' }))
    expect(said((await run()).error?.message)).toMatch(new RegExp(`^The server at ${host.replace(/\./g, '\\.')} answered with application/json instead of an event stream`))
  })

  it('a connection reset mid-stream and an idle deadline', async () => {
    server.reply(events([start], { then: 'reset' }))
    expect(said((await run()).error?.message)).toContain(`The connection to the server at ${host} (http://${host}) failed`)

    server.reply(events([start], { then: 'stall' }))
    expect(said((await run({ idleTimeoutMs: 100 })).error?.message)).toMatch(new RegExp(`^The server at ${host.replace(/\./g, '\\.')} sent no content`))
  })

  it('a 413 byte limit says the server, not Anthropic, refuses that many bytes', async () => {
    server.reply(status(413, '<html><head><title>413 Request Entity Too Large</title></head></html>', { 'content-type': 'text/html' }))
    const { error } = await run()
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
    expect(said(error?.message)).toMatch(new RegExp(`^The server at ${host.replace(/\./g, '\\.')} answered HTTP 413`))
  })

  it('a missing key names the server it is for', () => {
    expect(() => anthropic({ model: 'm', baseURL: server.baseURL, apiKeyEnv: 'BOSUN_TEST_UNSET_GATEWAY_KEY' })).toThrow(
      `The API key for the server at ${host} is missing: set the environment variable BOSUN_TEST_UNSET_GATEWAY_KEY (or name another one with the option apiKeyEnv).`,
    )
  })
})
