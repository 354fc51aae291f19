// Review Y2: an HTTP 413 is decided by its words (the kit's rule, ModelError.codeForStatus), not
// made CONTEXT_WINDOW_EXCEEDED whatever it says: a proxy's byte limit would trigger compaction for
// nothing, and Groq's 413 is a tokens-per-minute rate limit, which waiting cures.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'
import type { OpenAIOptions } from './options.js'
import { request, run } from './testing/helpers.js'
import { startServer, status, type TestServer } from './testing/server.js'
import { GROQ_TPM, NGINX_413, RATE_LIMIT_413 } from './testing/too-large.js'

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const model = (options: Partial<OpenAIOptions> = {}) => openai({ baseURL: server.url, model: 'test-model', ...options })

describe('HTTP 413', () => {
  it("a proxy's byte limit (nginx's page): INVALID_REQUEST, not retryable, saying compaction would not help", async () => {
    server.reply(status(413, NGINX_413, { 'content-type': 'text/html' }))
    const { error } = await run(model())
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.message).toMatch(/more bytes than the server, or a proxy in front of it, accepts/)
    expect(error!.message).toMatch(/compacting the conversation would not help/)
  })

  it('a 413 in rate-limit words: RATE_LIMIT, retryable, waiting as its reset header says', async () => {
    server.reply(status(413, RATE_LIMIT_413, { 'x-ratelimit-reset-tokens': '7.5s' }))
    const { error } = await run(model())
    expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 413, retryable: true, retryAfterMs: 7500 })
    expect(error!.message).toContain('on tokens per minute (TPM)')
  })

  // Review Y7: Groq's 413 says the request ALONE is over the per-minute limit (Requested > Limit):
  // no wait lets it through, so retrying it (as RATE_LIMIT) paid for nothing; a shorter one passes.
  it("Groq's 413 for a request over the whole per-minute limit: CONTEXT_WINDOW_EXCEEDED, not retryable, saying what to do", async () => {
    server.reply(status(413, GROQ_TPM, { 'x-ratelimit-reset-tokens': '7.5s' }))
    const { error } = await run(model())
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
    expect(error!.message).toContain('on tokens per minute (TPM)')
    expect(error!.message).toMatch(/this request alone is over the limit: 18657 tokens, its maximum output tokens \(maxTokens\) included, where 12000 per minute are allowed/)
    expect(error!.message).toMatch(/lower maxTokens, compact the conversation .*higher limit/)
  })

  it('a 413 whose message counts the context stays CONTEXT_WINDOW_EXCEEDED', async () => {
    server.reply(status(413, JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens." } })))
    expect((await run(model())).error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
  })

  it('an error payload in the stream with status 413 is typed by its words too', async () => {
    server.reply((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(`data: ${JSON.stringify({ error: { message: 'Payload Too Large', status: 413 } })}\n\n`)
    })
    expect((await run(model())).error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
  })
})

// Review G1: Groq answers 413 "Request too large … (TPM): Limit 12000, Requested 18657" when the
// request's tokens — its prompt AND its max_tokens — are over the per-minute limit. That was always
// CONTEXT_WINDOW_EXCEEDED, so the compaction plugin compacted and sent it again: useless when
// maxTokens alone is at or over the limit, as compaction shrinks the prompt, never the output
// budget. The adapter knows what it sent: then the 413 is INVALID_REQUEST saying to lower maxTokens.
describe("Groq's 413 when maxTokens alone is at or over the per-minute limit", () => {
  it('maxTokens over the limit: INVALID_REQUEST, not retryable, naming maxTokens, its value and the limit', async () => {
    server.reply(status(413, GROQ_TPM, { 'x-ratelimit-reset-tokens': '7.5s' }))
    const { error } = await run(model({ maxTokens: 16000 }))
    expect(server.requests[0]!.body.max_tokens).toBe(16000)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.retryAfterMs).toBeUndefined()
    expect(error!.message).toContain('Limit 12000, Requested 18657')
    expect(error!.message).toMatch(/maxTokens \(16000, sent as max_tokens\) is alone at or over the limit of 12000 tokens per minute/)
    expect(error!.message).toMatch(/set maxTokens below 12000/)
    expect(error!.message).toMatch(/compacting the conversation would not help/)
  })

  it('maxTokens equal to the limit counts (the prompt needs at least one token more)', async () => {
    server.reply(status(413, GROQ_TPM))
    expect((await run(model({ maxTokens: 12000 }))).error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
  })

  it('the value sent decides: params.maxTokens over the option, in the field maxTokensField names', async () => {
    server.reply(status(413, GROQ_TPM))
    const { error } = await run(model({ maxTokens: 1000, maxTokensField: 'max_completion_tokens' }), request({ params: { maxTokens: 20000 } }))
    expect(server.requests[0]!.body.max_completion_tokens).toBe(20000)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
    expect(error!.message).toMatch(/maxTokens \(20000, sent as max_completion_tokens\)/)
  })

  it('maxTokens under the limit: still CONTEXT_WINDOW_EXCEEDED (a shorter prompt can pass)', async () => {
    server.reply(status(413, GROQ_TPM))
    const { error } = await run(model({ maxTokens: 4000 }))
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413, retryable: false })
    expect(error!.message).toMatch(/this request alone is over the limit: 18657 tokens/)
  })

  it('no maxTokens sent (params.maxTokens null removes the option): CONTEXT_WINDOW_EXCEEDED', async () => {
    server.reply(status(413, GROQ_TPM))
    const { error } = await run(model({ maxTokens: 16000 }), request({ params: { maxTokens: null } }))
    expect(server.requests[0]!.body).not.toHaveProperty('max_tokens')
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413 })
  })

  it('the same 413 as an error payload inside the stream', async () => {
    server.reply((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(`data: ${JSON.stringify({ error: { ...JSON.parse(GROQ_TPM).error, status: 413 } })}\n\n`)
    })
    const { error } = await run(model({ maxTokens: 16000 }))
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.message).toMatch(/maxTokens \(16000, sent as max_tokens\) is alone at or over the limit of 12000/)
  })
})
