// Review V2: Anthropic's 413 request_too_large is a limit on the request's bytes (large images or
// documents), not on its tokens: compaction would summarise the text and leave the attachments, so
// it is INVALID_REQUEST with a hint about attachments — unless its message counts tokens, which
// stays CONTEXT_WINDOW_EXCEEDED. The same holds for the error inside a stream or a 200 JSON body.
// Review Y2: the rule is the kit's, shared by every adapter — one in rate-limit words is RATE_LIMIT.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AnthropicOptions } from './options.js'
import { ask, collect, model, serverAt, warmUpFetch } from './testing/helpers.js'
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

const run = async (options: Partial<AnthropicOptions> = {}) => (await collect(model(server.baseURL, options).stream(ask(), { signal: new AbortController().signal }))).error
const body = (message: string) => JSON.stringify({ type: 'error', error: { type: 'request_too_large', message } })
const BYTES = 'Request exceeds the maximum allowed number of bytes.'
const TOKENS = 'prompt is too long: 210000 tokens > 200000 maximum'

describe('413 request_too_large', () => {
  it('a byte limit is INVALID_REQUEST (not retryable), saying attachments are too large and compaction will not help', async () => {
    server.reply(status(413, body(BYTES)))
    const error = await run()
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.message).toContain(`${serverAt(server.baseURL)} answered HTTP 413: ${BYTES}`)
    expect(error!.message).toMatch(/images and documents/)
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
    expect(bytes!.message).toMatch(/images and documents/)
    expect(await run()).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false })
    expect(await run()).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
  })
})

// Review G1: a 413 over a per-minute token limit (Groq's words, "Limit 12000, Requested 18657",
// here from an Anthropic-compatible gateway) counts the request's max_tokens with its prompt. When
// max_tokens alone is at or over the limit, compaction (CONTEXT_WINDOW_EXCEEDED) cannot cure it:
// INVALID_REQUEST, saying to lower maxTokens — the kit's rule, as in the openai and ai-sdk adapters.
const groqMessage = (JSON.parse(GROQ_TPM) as { error: { message: string } }).error.message

describe('a 413 over the per-minute limit with maxTokens alone at or over it', () => {
  it('HTTP 413: INVALID_REQUEST, not retryable, naming maxTokens, its value and the limit', async () => {
    server.reply(status(413, GROQ_TPM, { 'retry-after': '3' }))
    const error = await run({ maxTokens: 16000 })
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false })
    expect(error!.message).toMatch(/maxTokens \(16000, sent as max_tokens\) is alone at or over the limit of 12000 tokens per minute/)
    expect(error!.message).toMatch(/set maxTokens below 12000/)
  })

  it('maxTokens under the limit: CONTEXT_WINDOW_EXCEEDED, as before', async () => {
    server.reply(status(413, GROQ_TPM))
    expect(await run({ maxTokens: 8000 })).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', status: 413 })
  })

  it('a request_too_large in the stream and in a 200 JSON body: the same rule', async () => {
    const payload = { type: 'error', error: { type: 'request_too_large', message: groqMessage } }
    server.reply(events([payload]), status(200, JSON.stringify(payload)))
    for (let i = 0; i < 2; i++) {
      const error = await run({ maxTokens: 12000 })
      expect(error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
      expect(error!.message).toMatch(/maxTokens \(12000, sent as max_tokens\) is alone at or over the limit of 12000/)
    }
  })

  it('with thinking, the message says that max_tokens holds the thinking budget (reasoningEffort)', async () => {
    server.reply(status(413, GROQ_TPM))
    const error = await run({ maxTokens: 4000, reasoningEffort: 'high' })
    expect(server.requests[0]!.body).toMatchObject({ max_tokens: 20384, thinking: { budget_tokens: 16384 } })
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413 })
    expect(error!.message).toMatch(/maxTokens \(20384, sent as max_tokens, a thinking budget of 16384 \(reasoningEffort\) included\) is alone at or over the limit of 12000/)
  })
})
