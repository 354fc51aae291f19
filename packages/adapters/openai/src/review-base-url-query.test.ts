// The public adapter.baseURL kept the query string of the baseURL option — where a proxy's key
// may sit (`?key=…`) — while errors already left it out; a fragment (never sent) was accepted.
import { BosunError, createAdapter, serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import definition from './index.js'
import { run } from './testing/helpers.js'
import { startServer, type TestServer } from './testing/server.js'

const TOKEN = 'pxy-Q7fK2mX9vR4tL8nB'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

/** Everything of a value a user or a log could see. */
const shown = (value: unknown): string => `${value instanceof Error ? value.message : ''}\n${JSON.stringify(value instanceof Error ? serializeError(value) : value)}\n${inspect(value, { depth: 10 })}`

describe('openai(): a baseURL with a query string (review)', () => {
  it('sends the query with every request, and shows it with its values redacted', async () => {
    const adapter = openai({ model: 'm', baseURL: `${server.url}?api-version=2024-10-21&key=${TOKEN}` })
    expect(adapter.baseURL).toBe(`${server.url}?api-version=[redacted]&key=[redacted]`)
    expect(shown(adapter)).not.toContain(TOKEN.slice(0, 8))
    const result = await run(adapter)
    expect(result.error).toBeUndefined()
    expect(server.requests.map((request) => request.path)).toEqual([`/v1/chat/completions?api-version=2024-10-21&key=${TOKEN}`])
  })

  it('refuses a #fragment (never sent) without quoting it, from code and through createAdapter', async () => {
    const baseURL = `${server.url}#access_token=${TOKEN}`
    let error: unknown
    try {
      openai({ model: 'm', baseURL })
    } catch (caught) {
      error = caught
    }
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.baseURL' } })
    // the schema's rule (one source): the same line from code and through the definition
    const line = '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment)'
    expect((error as Error).message).toContain(line)
    expect(shown(error)).not.toContain(TOKEN.slice(0, 8))
    const viaDefinition = await createAdapter(definition, { model: 'm', baseURL }).catch((e: unknown) => e)
    expect(viaDefinition).toMatchObject({ code: 'PLUGIN_OPTIONS_INVALID', details: { paths: '$.baseURL' } })
    expect((viaDefinition as Error).message).toContain(line)
    expect(shown(viaDefinition)).not.toContain(TOKEN.slice(0, 8))
    expect(server.requests).toEqual([])
  })
})
