import { BosunError, createAdapter } from '@bosun/core'
import { validateConfig } from '@bosun/core/config'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import definition, { openai } from './index.js'
import { request, run } from './testing/helpers.js'
import { sse, startServer, status, type Reply, type TestServer } from './testing/server.js'

// The errors a newcomer meets pointing the adapter at a local server: each says where, what was
// expected and what to set.

let server: TestServer
/** The server's root, without /v1: `http://127.0.0.1:<port>`. */
let root: string
beforeAll(async () => {
  server = await startServer()
  root = server.url.replace(/\/v1$/, '')
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  // A server like vLLM or Ollama: /v1/chat/completions only, 404 for any other path.
  server.fallback = route
})

const ok = sse(['{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}'])
const notFound = status(404, '{"detail":"Not Found"}')
const route: Reply = (res, req) => (req.url === '/v1/chat/completions' ? ok(res, req) : notFound(res, req))

describe('a refused connection', () => {
  it('names the baseURL and says to check it; a credential in its query is not shown', async () => {
    // Port 0: nothing can listen on it (binding 0 asks for any free port), so the connection is
    // refused every time — a port a closed server had could be taken by another process meanwhile.
    const url = 'http://127.0.0.1:0/v1'
    const { error } = await run(openai({ baseURL: `${url}?api-key=hush-4242`, model: 'm' }))
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', true])
    expect(error?.message).toContain(`Nothing answered at ${url}: the connection was refused`)
    expect(error?.message).toContain('ECONNREFUSED')
    expect(error?.message).toContain("Check the adapter's baseURL: is the server running, and listening at that host and port?")
    expect(error?.message).not.toContain('hush-4242')
    expect(error?.message).not.toMatch(/to The server/)
  })
})

describe('a port fetch refuses (one browsers block as unsafe)', () => {
  it('says the port is the problem and what to do, not retryable; nothing is sent', async () => {
    // 6000 (X11) is on the fetch spec's list of blocked ports: undici refuses it before connecting,
    // so nothing needs to listen there. Before, the message was only "fetch failed (bad port)".
    const url = 'http://127.0.0.1:6000/v1'
    const { error } = await run(openai({ baseURL: url, model: 'm' }))
    expect([error?.code, error?.retryable]).toEqual(['TRANSPORT', false])
    expect(error?.message).toContain(`Node's fetch refuses to connect to ${url}: port 6000 is one of the ports browsers block as unsafe`)
    expect(error?.message).toContain("Serve the API on another port (8000, 8080, 11434…) or put a proxy in front of it, and change the adapter's baseURL.")
  })
})

describe('a 404 says what is wrong with the path', () => {
  it('a baseURL without /v1: says the path has no /v1 and what to set', async () => {
    const { error } = await run(openai({ baseURL: root, model: 'm' }))
    expect([error?.code, error?.status]).toEqual(['INVALID_REQUEST', 404])
    expect(error?.message).toContain(`POST ${root}/chat/completions has no /v1`)
    expect(error?.message).toContain(`set baseURL to ${root}/v1)`)
    expect(server.requests.map((r) => r.path)).toEqual(['/chat/completions'])
  })

  it('a baseURL ending in /v1/v1 (or /v1/ pasted twice): says /v1 is doubled and what to set', async () => {
    const { error } = await run(openai({ baseURL: `${root}/v1/v1/`, model: 'm' }))
    expect(error?.status).toBe(404)
    expect(error?.message).toContain(`POST ${root}/v1/v1/chat/completions has /v1 twice: set baseURL to ${root}/v1`)
  })

  it('the right path answering 404 without naming the model: check baseURL and the model', async () => {
    server.reply(status(404, '{"detail":"Not Found"}'))
    const { error } = await run(openai({ baseURL: server.url, model: 'nope' }))
    expect(error?.message).toContain(`POST ${server.url}/chat/completions was not found: check baseURL (${server.url}) and the model name`)
    expect(error?.message).not.toMatch(/no \/v1|twice/)
  })
})

// U3 walk: a misspelt model on a server whose API root has no /v1 (DeepSeek's documented
// https://api.deepseek.com) was told "has no /v1 … set baseURL to …/v1" — advice that breaks the
// working baseURL — because the 404's words, which name the model, were not read.
describe('a 404 whose words say the server does not know the model: check the model name, the path was right', () => {
  const unknownModel = (name: string) => status(404, JSON.stringify({ error: { message: `The model \`${name}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } }))

  it('OpenAI\'s model_not_found at a root without /v1: no /v1 advice', async () => {
    server.reply(unknownModel('deepseek-chatt'))
    const { error } = await run(openai({ baseURL: root, model: 'deepseek-chatt' }))
    expect([error?.code, error?.status]).toEqual(['INVALID_REQUEST', 404])
    expect(server.requests.map((r) => r.path)).toEqual(['/chat/completions'])
    expect(error?.message).toContain('The model `deepseek-chatt` does not exist')
    expect(error?.message).toContain(`(the server does not know the model "deepseek-chatt": check the model name — POST ${root}/chat/completions answered, so baseURL is right)`)
    expect(error?.message).not.toMatch(/no \/v1|twice|was not found/)
  })

  it('at /v1: the same words, not "was not found: check baseURL"', async () => {
    server.reply(unknownModel('gpt-4.1-nanoo'))
    const { error } = await run(openai({ baseURL: server.url, model: 'gpt-4.1-nanoo' }))
    expect(error?.message).toContain(`(the server does not know the model "gpt-4.1-nanoo": check the model name — POST ${server.url}/chat/completions answered, so baseURL is right)`)
  })

  it("Ollama's words (a model not pulled) name it without OpenAI's code; a request's own model wins over the configured one", async () => {
    server.reply(status(404, JSON.stringify({ error: { message: 'model "llama3.3" not found, try pulling it first', type: 'api_error', param: null, code: null } })))
    const { error } = await run(openai({ baseURL: server.url, model: 'llama3.2' }), request({ model: 'llama3.3' }))
    expect(error?.message).toContain('model "llama3.3" not found, try pulling it first (the server does not know the model "llama3.3": check the model name')
  })

  it('a name that is only part of a word of the 404 (model "chat" in "/v1/chat/completions") is not taken for the model', async () => {
    server.reply(status(404, '{"detail":"No route for POST /v1/chat/completions"}'))
    const { error } = await run(openai({ baseURL: server.url, model: 'chat' }))
    expect(error?.message).toContain('was not found: check baseURL')
  })

  it('the fixed baseURL works', async () => {
    const { error, chunks } = await run(openai({ baseURL: `${root}/v1`, model: 'm' }))
    expect(error).toBeUndefined()
    expect(chunks).toContainEqual({ type: 'text-delta', text: 'ok' })
  })
})

describe('a baseURL without a scheme', () => {
  const LINE = '$.baseURL: must be a URL that starts with http:// or https:// (no spaces, no user:password@, no #fragment), e.g. "http://localhost:11434/v1" (found "localhost:11434/v1")'

  it('in a config file: a plain sentence naming the option, not a regular expression', async () => {
    const config = { model: { adapter: definition, options: { model: 'm', baseURL: 'localhost:11434/v1' } } }
    const error = await validateConfig({ config, file: undefined, dir: process.cwd() }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'CONFIG_INVALID')).toBe(true)
    const message = (error as Error).message
    expect(message).toContain(`  - $.model.options${LINE.slice(1).replace(': ', ' (adapter "openai"): ')}`)
    expect(message).not.toMatch(/pattern|\^https/)
  })

  it('through the definition (createAdapter): the same sentence, once', async () => {
    const error = await createAdapter(definition, { model: 'm', baseURL: 'localhost:11434/v1' }).catch((e: unknown) => e)
    expect(BosunError.is(error, 'PLUGIN_OPTIONS_INVALID')).toBe(true)
    expect((error as Error).message).toBe(`Invalid options for adapter "openai":\n  - ${LINE}`)
  })

  it('in code: the same sentence', () => {
    expect(() => openai({ model: 'm', baseURL: 'localhost:11434/v1' })).toThrow(`Invalid options for openai():\n  - ${LINE}`)
  })
})

describe('a server other than a known provider, named mid-sentence', () => {
  // Such a server is "the server at <host>": a message that names it after other words must not
  // read "The connection to The server at …".
  const host = (): string => new URL(server.url).host

  it('a connection cut mid-stream: "The connection to the server at <host> (<baseURL>) failed"', async () => {
    server.reply(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      await new Promise<void>((resolve) => res.write('data: {"choices":[{"index":0,"delta":{"content":"par"}}]}\n\n', () => resolve()))
      res.destroy()
    })
    const { error } = await run(openai({ baseURL: server.url, model: 'm' }))
    expect(error?.code).toBe('TRANSPORT')
    expect(error?.message).toContain(`The connection to the server at ${host()} (${server.url}) failed`)
  })

  it('a stream that ends without a finish reason: "The stream from the server at <host> ended …"', async () => {
    server.reply(sse(['{"choices":[{"index":0,"delta":{"content":"par"}}]}'], { done: false }))
    const { error } = await run(openai({ baseURL: server.url, model: 'm' }))
    expect(error?.code).toBe('TRANSPORT')
    expect(error?.message).toContain(`The stream from the server at ${host()} ended before the response was complete`)
  })

  it('at the start of a sentence it keeps its capital', async () => {
    server.reply(status(500, '{"error":{"message":"boom"}}'))
    const { error } = await run(openai({ baseURL: server.url, model: 'm' }))
    expect(error?.message).toMatch(new RegExp(`^The server at ${host().replace(/\./g, '\\.')} answered HTTP 500`))
  })
})
