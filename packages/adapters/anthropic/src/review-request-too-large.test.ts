// Review V2: Anthropic's 413 request_too_large is a limit on the request's bytes (large images or
// documents), not on its tokens: compaction would summarise the text and leave the attachments, so
// it is INVALID_REQUEST with a hint about attachments — unless its message counts tokens, which
// stays CONTEXT_WINDOW_EXCEEDED. The same holds for the error inside a stream or a 200 JSON body.
// Review Y2: the rule is the kit's, shared by every adapter — one in rate-limit words is RATE_LIMIT.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ask, collect, model, warmUpFetch } from './testing/helpers.js'
import { events, fakeServer, status, type FakeServer } from './testing/server.js'
import { GROQ_TPM, RATE_LIMIT_413 } from '../../openai/src/testing/too-large.js'

let server: FakeServer
beforeAll(warmUpFetch)
beforeEach(async () => {
  server = await fakeServer()
})
afterEach(async () => {
  await server.close()
})

const run = async () => (await collect(model(server.baseURL).stream(ask(), { signal: new AbortController().signal }))).error
const body = (message: string) => JSON.stringify({ type: 'error', error: { type: 'request_too_large', message } })
const BYTES = 'Request exceeds the maximum allowed number of bytes.'
const TOKENS = 'prompt is too long: 210000 tokens > 200000 maximum'

describe('413 request_too_large', () => {
  it('a byte limit is INVALID_REQUEST (not retryable), saying attachments are too large and compaction will not help', async () => {
    server.reply(status(413, body(BYTES)))
    const error = await run()
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.message).toContain(`Anthropic answered HTTP 413: ${BYTES}`)
    expect(error!.message).toMatch(/images or documents/)
    expect(error!.message).toMatch(/compact\w* .*not help/)
  })

  it("a proxy's 413 page (nginx's client_max_body_size) is the same byte limit", async () => {
    server.reply(status(413, '<html><head><title>413 Request Entity Too Large</title></head></html>', { 'content-type': 'text/html' }))
    expect(await run()).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
  })

  it('a token count stays CONTEXT_WINDOW_EXCEEDED', async () => {
    server.reply(status(413, body(TOKENS)))
    expect(await run()).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
  })

  it('a rate limit in its words (a gateway relaying Groq-style tokens-per-minute limits): RATE_LIMIT, retryable', async () => {
    server.reply(status(413, RATE_LIMIT_413, { 'retry-after': '3' }))
    expect(await run()).toMatchObject({ code: 'RATE_LIMIT', status: 413, retryable: true, retryAfterMs: 3000 })
  })

  // Review Y7: Requested > Limit — this request alone is over the per-minute limit, no wait cures it.
  it('a request alone over a per-minute limit (Requested > Limit): CONTEXT_WINDOW_EXCEEDED, not retryable, saying what to do', async () => {
    server.reply(status(413, GROQ_TPM, { 'retry-after': '3' }))
    const error = await run()
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
    expect(error!.message).toMatch(/this request alone is over the limit: 18657 tokens.*lower maxTokens/)
  })

  it('inside a stream and in a 200 JSON body: decided by the message too', async () => {
    const inStream = (message: string) => events([{ type: 'error', error: { type: 'request_too_large', message } }])
    server.reply(inStream(BYTES), inStream(TOKENS), status(200, body(BYTES)))
    const bytes = await run()
    expect(bytes).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(bytes!.message).toMatch(/images or documents/)
    expect(await run()).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false })
    expect(await run()).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
  })
})
