import { describe, expect, it } from 'vitest'
import { adapterOptionProblems } from './options.js'
import { ModelError } from '../model.js'
import { CONTEXT_WINDOW_MESSAGE, MAX_PROVIDER_MESSAGE, maxTokensOverLimit, maxTokensOverLimitHint, maxTokensRefusal, modelErrorFromResponse } from './http-error.js'

// Found in review (U3): three gaps between what providers send and what the adapter kit made of it.

describe('a context-window error in any provider\'s words is CONTEXT_WINDOW_EXCEEDED (compaction acts on it)', () => {
  const bodies = {
    'llama.cpp': { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } },
    'Gemini (OpenAI-compatible)': { error: { code: 400, message: 'The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } },
    'OpenAI': { error: { message: "This model's maximum context length is 128000 tokens.", code: 'context_length_exceeded' } },
    'Anthropic': { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
  }
  for (const [provider, body] of Object.entries(bodies)) {
    it(provider, () => {
      expect(modelErrorFromResponse(provider, 400, new Headers(), JSON.stringify(body)).code).toBe('CONTEXT_WINDOW_EXCEEDED')
    })
  }

  it('has no unbounded gap: a 400 body (up to 1 MB) is scanned once, not rescanned from each match of a phrase', () => {
    // `input token count.*exceeds the maximum` rescanned the rest of the line from every "input
    // token count": a 1 MB body repeating it held the event loop (every session) for ~40 s.
    expect(CONTEXT_WINDOW_MESSAGE.source).not.toMatch(/\.[*+]/)
    expect(CONTEXT_WINDOW_MESSAGE.test('The input token count exceeds the maximum number of tokens allowed 1048576.')).toBe(true)
  })

  it('an ordinary bad request stays INVALID_REQUEST', () => {
    expect(CONTEXT_WINDOW_MESSAGE.test('Unknown parameter: temperature_x')).toBe(false)
    expect(modelErrorFromResponse('p', 400, new Headers(), JSON.stringify({ error: { message: 'Invalid value for "model"' } })).code).toBe('INVALID_REQUEST')
  })
})

describe('a provider\'s message is quoted cut, after the key is masked', () => {
  it('a JSON error message of 200,000 characters makes an error of about a thousand', () => {
    const message = `${'x'.repeat(200_000)}`
    const error = modelErrorFromResponse('p', 500, new Headers(), JSON.stringify({ error: { message } }))
    expect(error.message.length).toBeLessThan(MAX_PROVIDER_MESSAGE + 100)
    expect(error.message).toContain('…')
  })

  it('a key straddling the cut leaves no piece of itself', () => {
    const secret = 'sk-live-0123456789abcdefghij'
    const message = `${'y'.repeat(MAX_PROVIDER_MESSAGE - 10)}${secret}${'z'.repeat(50)}`
    const error = modelErrorFromResponse('p', 500, new Headers(), JSON.stringify({ error: { message } }), { secret })
    expect(error.message).not.toContain('sk-live-0')
    expect(error.message).toContain('[redacted]')
  })
})

describe('headers fetch writes itself are refused when the adapter is configured', () => {
  for (const name of ['Transfer-Encoding', 'keep-alive', 'Upgrade', 'expect', 'Content-Length']) {
    it(name, () => {
      const problems = adapterOptionProblems({ headers: { [name]: 'x' } }, 'https://api.example/v1')
      expect(problems).toEqual([{ keys: ['headers', name], message: `cannot be set: fetch writes "${name.toLowerCase()}" itself, and refuses every request that gives it (remove it)` }])
    })
  }

  it('other headers pass', () => {
    expect(adapterOptionProblems({ headers: { 'HTTP-Referer': 'https://example.com', Connection: 'close', 'X-Title': 'agent' } }, 'https://api.example/v1')).toEqual([])
  })
})

// Review Y2: a 413 was CONTEXT_WINDOW_EXCEEDED whatever it said, so a proxy's byte limit made
// compaction run for nothing and Groq's tokens-per-minute 413 was never retried. One rule for every
// adapter, in ModelError.codeForStatus (public): a 413 is typed by its words.
describe('ModelError.codeForStatus: a 413 by its words', () => {
  it('context words: CONTEXT_WINDOW_EXCEEDED; rate-limit words: RATE_LIMIT; otherwise INVALID_REQUEST', () => {
    expect(ModelError.codeForStatus(413, 'prompt is too long: 210000 tokens > 200000 maximum')).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(ModelError.codeForStatus(413, 'Rate limit reached for model on tokens per minute (TPM): Limit 6000, Used 5000, Requested 800')).toBe('RATE_LIMIT')
    expect(ModelError.codeForStatus(413, '{"error":{"code":"rate_limit_exceeded"}}')).toBe('RATE_LIMIT')
    expect(ModelError.codeForStatus(413, '<title>413 Request Entity Too Large</title>')).toBe('INVALID_REQUEST')
    expect(ModelError.codeForStatus(413)).toBe('INVALID_REQUEST')
  })

  it('other statuses as before; a 400 in context words is CONTEXT_WINDOW_EXCEEDED, never a rate limit', () => {
    expect([401, 403, 408, 429, 500, 529].map((status) => ModelError.codeForStatus(status, 'rate limit'))).toEqual(['AUTH', 'AUTH', 'TIMEOUT', 'RATE_LIMIT', 'SERVER', 'SERVER'])
    expect(ModelError.codeForStatus(400, "This model's maximum context length is 8192 tokens")).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(ModelError.codeForStatus(400, 'rate_limit is not a parameter')).toBe('INVALID_REQUEST')
  })

  it('modelErrorFromResponse: the reset headers give a 413 rate limit its wait; a byte limit says what to do', () => {
    const limited = modelErrorFromResponse('Groq', 413, new Headers({ 'x-ratelimit-reset-tokens': '7.5s' }), JSON.stringify({ error: { message: 'on tokens per minute (TPM): Limit 6000', code: 'rate_limit_exceeded' } }))
    expect(limited).toMatchObject({ code: 'RATE_LIMIT', retryable: true, retryAfterMs: 7500 })
    const bytes = modelErrorFromResponse('The server at proxy:8080', 413, new Headers(), '<title>413 Request Entity Too Large</title>')
    expect(bytes).toMatchObject({ code: 'INVALID_REQUEST', retryable: false })
    expect(bytes.message).toMatch(/compacting the conversation would not help/)
  })
})

// Review Y7: Groq answers 413 "Request too large … on tokens per minute (TPM): Limit 12000, Requested
// 18657" when ONE request is over the whole per-minute limit: no wait lets it through, so RATE_LIMIT
// (retried, each time refused) was wrong. It is CONTEXT_WINDOW_EXCEEDED — compaction shortens the
// request — with a message saying the counts and what to do.
describe('a 413 whose request alone is over the per-minute limit (Requested > Limit)', () => {
  const groq = 'Request too large for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 12000, Requested 18657, please reduce your message size and try again.'

  it('is CONTEXT_WINDOW_EXCEEDED; at or under the limit it stays RATE_LIMIT; a 429 stays RATE_LIMIT', () => {
    expect(ModelError.codeForStatus(413, groq)).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(ModelError.codeForStatus(413, groq.replace('18657', '12000'))).toBe('RATE_LIMIT')
    expect(ModelError.codeForStatus(429, groq)).toBe('RATE_LIMIT')
    // Counts without rate-limit words are not read: a byte limit stays one.
    expect(ModelError.codeForStatus(413, 'body size Limit 100, Requested 200')).toBe('INVALID_REQUEST')
  })

  it('modelErrorFromResponse: not retryable, no wait, and the message says the counts and what to do', () => {
    const error = modelErrorFromResponse('Groq', 413, new Headers({ 'x-ratelimit-reset-tokens': '7.5s' }), JSON.stringify({ error: { message: groq, type: 'tokens', code: 'rate_limit_exceeded' } }))
    expect(error).toMatchObject({ code: 'CONTEXT_WINDOW_EXCEEDED', retryable: false, retryAfterMs: undefined })
    expect(error.message).toContain('this request alone is over the limit: 18657 tokens, its maximum output tokens (maxTokens) included, where 12000 per minute are allowed, so no wait lets it through')
    expect(error.message).toMatch(/lower maxTokens, compact the conversation .* or use an account tier with a higher limit\)$/)
  })
})

// Review G1: Groq counts the request's max_tokens in that limit. When maxTokens ALONE is at or over
// it, no prompt is short enough, so compaction (CONTEXT_WINDOW_EXCEEDED) would compact for nothing:
// an adapter that says what it sent gets INVALID_REQUEST, saying to lower maxTokens.
describe("a 413 over the per-minute limit that the request's maxTokens alone reach", () => {
  const groq = JSON.stringify({ error: { message: 'Request too large for model `m` on tokens per minute (TPM): Limit 12000, Requested 18657, please reduce your message size and try again.', type: 'tokens', code: 'rate_limit_exceeded' } })

  it('maxTokensOverLimit: only a 413 of those words, with maxTokens at or over the limit', () => {
    expect(maxTokensOverLimit(413, groq, 12000, 'max_tokens')).toEqual({ maxTokens: 12000, field: 'max_tokens', requested: 18657, limit: 12000 })
    expect(maxTokensOverLimit(413, groq, 11999)).toBeUndefined()
    expect(maxTokensOverLimit(413, groq, undefined)).toBeUndefined()
    expect(maxTokensOverLimit(413, groq, Number.NaN)).toBeUndefined()
    expect(maxTokensOverLimit(429, groq, 16000)).toBeUndefined()
    expect(maxTokensOverLimit(413, groq.replace('18657', '12000'), 16000)).toBeUndefined()
    expect(maxTokensOverLimit(413, 'body size Limit 100, Requested 200', 16000)).toBeUndefined()
  })

  it('maxTokensRefusal: the code and the hint every adapter gives such a refusal, or undefined', () => {
    expect(maxTokensRefusal(413, groq, { maxTokens: 12000, maxTokensField: 'max_tokens' })).toEqual({
      code: 'INVALID_REQUEST',
      hint: maxTokensOverLimitHint({ maxTokens: 12000, field: 'max_tokens', requested: 18657, limit: 12000 }),
    })
    expect(maxTokensRefusal(413, groq, { maxTokens: 12000 })!.hint).toContain('maxTokens (12000) is alone at or over the limit of 12000')
    expect(maxTokensRefusal(413, groq, { maxTokens: 11999 })).toBeUndefined()
    expect(maxTokensRefusal(413, groq, undefined)).toBeUndefined()
    expect(maxTokensRefusal(429, groq, { maxTokens: 16000 })).toBeUndefined()
  })

  it('modelErrorFromResponse given maxTokens: INVALID_REQUEST, no wait, naming maxTokens, its field, its value and the limit', () => {
    const error = modelErrorFromResponse('Groq', 413, new Headers({ 'x-ratelimit-reset-tokens': '7.5s' }), groq, { maxTokens: 16000, maxTokensField: 'max_completion_tokens' })
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 413, retryable: false, retryAfterMs: undefined })
    expect(error.message).toMatch(/^Groq answered HTTP 413: Request too large .*Limit 12000, Requested 18657/)
    expect(error.message).toContain('maxTokens (16000, sent as max_completion_tokens) is alone at or over the limit of 12000 tokens per minute')
    expect(error.message).toMatch(/set maxTokens below 12000, leaving room for the prompt, or use an account tier with a higher limit\)$/)
    expect(modelErrorFromResponse('Groq', 413, new Headers(), groq, { maxTokens: 4000 }).code).toBe('CONTEXT_WINDOW_EXCEEDED')
  })
})
