import { describe, expect, it } from 'vitest'
import { adapterOptionProblems } from './options.js'
import { CONTEXT_WINDOW_MESSAGE, MAX_PROVIDER_MESSAGE, modelErrorFromResponse } from './http-error.js'

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
