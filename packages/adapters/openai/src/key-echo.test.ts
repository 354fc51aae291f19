// Issue 13.2: a server echoing the key never gets a piece of it into an error, whatever the cut.
import { serializeError } from '@bosun/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import { ECHOED_KEY, keyAt, keyPieces } from './testing/hostile.js'
import { run } from './testing/helpers.js'
import { sse, startServer, status, type Reply, type TestServer } from './testing/server.js'

const KEY_ENV = 'BOSUN_TEST_OPENAI_ECHOED_KEY'

let server: TestServer
beforeAll(async () => {
  process.env[KEY_ENV] = ECHOED_KEY
  server = await startServer()
})
afterAll(async () => {
  delete process.env[KEY_ENV]
  await server.close()
})
beforeEach(() => server.reset())

const model = () => openai({ baseURL: server.url, model: 'm', apiKeyEnv: KEY_ENV })

/** Every error path that quotes what the server sent, with the length at which it is cut. */
const paths: { name: string; cut: number; reply: (text: string) => Reply }[] = [
  { name: 'an HTTP error body that is not JSON', cut: 300, reply: (text) => status(502, text, { 'content-type': 'text/html' }) },
  { name: 'an HTTP error body whose JSON message quotes it', cut: 300, reply: (text) => status(400, JSON.stringify({ error: { message: text } })) },
  { name: 'a 200 JSON answer that is not JSON', cut: 200, reply: (text) => status(200, text) },
  { name: 'a 200 JSON answer that is not an object', cut: 200, reply: (text) => status(200, JSON.stringify(text)) },
  { name: 'a stream chunk that is not JSON', cut: 200, reply: (text) => sse([text]) },
  { name: 'a stream chunk that is not an object', cut: 200, reply: (text) => sse([JSON.stringify(text)]) },
  { name: 'a stream error object without a message', cut: 200, reply: (text) => sse([JSON.stringify({ error: { detail: text } })]) },
  { name: 'a stream error message', cut: 200, reply: (text) => sse([JSON.stringify({ error: { message: text } })]) },
]

describe('a key echoed by the server, placed across every cut', () => {
  for (const path of paths) {
    it(path.name, async () => {
      for (let offset = Math.max(0, path.cut - ECHOED_KEY.length - 12); offset <= path.cut + 2; offset++) {
        server.reply(path.reply(keyAt(offset)))
        const { error } = await run(model())
        expect(error, `offset ${offset}`).toBeDefined()
        const shown = `${JSON.stringify(serializeError(error))} ${String(error?.stack)}`
        expect(keyPieces(shown), `offset ${offset}: ${error?.message}`).toEqual([])
        expect(error?.cause).toBeUndefined()
      }
    })
  }
})
