// Issue 13.2: a server echoing the key never gets a piece of it into an error, whatever the cut.
import { serializeError } from '@bosun/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ECHOED_KEY, keyAt, keyPieces } from '../../openai/src/testing/hostile.js'
import { anthropic } from './adapter.js'
import { ask, collect } from './testing/helpers.js'
import { fakeServer, status, stream, type FakeServer, type Reply } from './testing/server.js'

const KEY_ENV = 'BOSUN_TEST_ANTHROPIC_ECHOED_KEY'

let server: FakeServer
beforeAll(async () => {
  process.env[KEY_ENV] = ECHOED_KEY
  server = await fakeServer()
})
afterAll(async () => {
  delete process.env[KEY_ENV]
  await server.close()
})

const run = () =>
  collect(anthropic({ model: 'claude-test', baseURL: server.baseURL, apiKeyEnv: KEY_ENV }).stream(ask(), { signal: new AbortController().signal }))

const event = (data: string): string => `event: message_start\ndata: ${data}\n\n`
const errorBody = (message: string): string => JSON.stringify({ type: 'error', error: { type: 'api_error', message } })

/** Every error path that quotes what the server sent, with the length at which it is cut (if it is). */
const paths: { name: string; cut: number; reply: (text: string) => Reply }[] = [
  { name: 'an HTTP error body that is not JSON', cut: 300, reply: (text) => status(502, text, { 'content-type': 'text/html' }) },
  { name: 'an HTTP error body whose JSON message quotes it', cut: 300, reply: (text) => status(400, errorBody(text)) },
  { name: 'a 200 that is neither an event stream nor an error', cut: 200, reply: (text) => status(200, text, { 'content-type': 'text/plain' }) },
  { name: 'a 200 JSON error body', cut: 200, reply: (text) => status(200, errorBody(text)) },
  { name: 'an event whose data is not JSON', cut: 120, reply: (text) => stream([event(text)]) },
  { name: 'an event without a type', cut: 120, reply: (text) => stream([event(JSON.stringify(text))]) },
  { name: 'an error event', cut: 120, reply: (text) => stream([`event: error\ndata: ${errorBody(text)}\n\n`]) },
  { name: 'a malformed event quoting a field', cut: 120, reply: (text) => stream([event(JSON.stringify({ type: 'content_block_start', index: text }))]) },
]

describe('a key echoed by the server, placed across every cut', () => {
  for (const path of paths) {
    it(path.name, async () => {
      for (let offset = Math.max(0, path.cut - ECHOED_KEY.length - 12); offset <= path.cut + 2; offset++) {
        server.reply(path.reply(keyAt(offset)))
        const { error } = await run()
        expect(error, `offset ${offset}`).toBeDefined()
        const shown = `${JSON.stringify(serializeError(error))} ${String(error?.stack)}`
        expect(keyPieces(shown), `offset ${offset}: ${error?.message}`).toEqual([])
        expect(error?.cause).toBeUndefined()
      }
    })
  }
})
