import { describe, expect, it } from 'vitest'
import { BosunError } from '../errors.js'
import { ModelError } from '../model.js'
import { modelErrorFromResponse, parseDuration, redactSecret, retryAfterMs, withIdleTimeout } from './index.js'

const h = (init: Record<string, string>) => new Headers(init)

describe('retryAfterMs', () => {
  it('reads retry-after-ms first, then retry-after seconds or date, then reset headers', () => {
    expect(retryAfterMs(h({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500)
    expect(retryAfterMs(h({ 'retry-after': '2' }))).toBe(2000)
    expect(retryAfterMs(h({ 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT' }), Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000)
    expect(retryAfterMs(h({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }))).toBe(360_000)
    expect(retryAfterMs(h({ 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:03Z' }), Date.parse('2026-01-01T00:00:00Z'))).toBe(3000)
    expect(retryAfterMs(h({}))).toBeUndefined()
    expect(retryAfterMs(h({ 'retry-after': 'soon' }))).toBeUndefined()
  })

  it('parses Go-style durations and refuses anything else', () => {
    expect(parseDuration('20ms')).toBe(20)
    expect(parseDuration('1h2m3.5s')).toBe(3_723_500)
    expect(parseDuration('0.5s')).toBe(500)
    expect(parseDuration('5 minutes')).toBeUndefined()
  })
})

describe('retryAfterMs: what is not a wait', () => {
  it('ignores an empty retry-after-ms, and the reset headers when told they did not refuse the request', () => {
    expect(retryAfterMs(h({ 'retry-after-ms': '', 'retry-after': '5' }))).toBe(5000)
    expect(retryAfterMs(h({ 'x-ratelimit-reset-tokens': '6m0s' }), Date.now(), { resetHeaders: false })).toBeUndefined()
    expect(retryAfterMs(h({ 'retry-after': '2', 'x-ratelimit-reset-tokens': '6m0s' }), Date.now(), { resetHeaders: false })).toBe(2000)
  })
})

describe('modelErrorFromResponse: quota and reset headers', () => {
  it('a 429 insufficient_quota is a RATE_LIMIT that is not retryable, without a wait, saying why', () => {
    const body = JSON.stringify({ error: { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' } })
    const error = modelErrorFromResponse('OpenAI', 429, h({ 'retry-after': '20' }), body)
    expect([error.code, error.retryable, error.retryAfterMs]).toEqual(['RATE_LIMIT', false, undefined])
    expect(error.message).toContain('retrying will not help')
  })

  it('reads the rate-limit reset headers as a wait for a 429 only: a 503 or 529 stays a plain retryable failure', () => {
    const reset = { 'x-ratelimit-reset-tokens': '6m0s', 'anthropic-ratelimit-output-tokens-reset': new Date(Date.now() + 90_000).toUTCString() }
    expect(modelErrorFromResponse('OpenAI', 429, h(reset), '{}').retryAfterMs).toBeGreaterThan(60_000)
    for (const status of [503, 529]) {
      const error = modelErrorFromResponse('Anthropic', status, h(reset), '{}')
      expect([error.code, error.retryable, error.retryAfterMs]).toEqual(['SERVER', true, undefined])
    }
  })
})

describe('redactSecret', () => {
  const KEY = 'sk-test-KEY-123'
  it('cuts the key out of the message and drops a cause that quotes it, keeping code, status, retryable and the wait', () => {
    const echoed = redactSecret(new ModelError('RATE_LIMIT', `no: ${KEY}`, { status: 429, retryAfterMs: 5, retryable: false }), KEY)
    expect([echoed.code, echoed.status, echoed.retryable, echoed.retryAfterMs, echoed.message]).toEqual(['RATE_LIMIT', 429, false, 5, 'no: [redacted]'])
    const quoted = redactSecret(new ModelError('TRANSPORT', 'the connection failed', { cause: new Error('wrapped', { cause: new TypeError(`bad header "${KEY}"`) }) }), KEY)
    expect(quoted.cause).toBeUndefined()
    expect(quoted.message).toBe('the connection failed')
  })

  it("drops a cause whose own fields quote the key (an SDK error's responseBody, response headers), even in a cycle", () => {
    const sdkError = Object.assign(new Error('Unauthorized'), { statusCode: 401, responseBody: `{"error":"bad key ${KEY.slice(0, 10)}"}` })
    expect(redactSecret(new ModelError('AUTH', 'HTTP 401: Unauthorized', { status: 401, cause: sdkError }), KEY).cause).toBeUndefined()
    const withHeaders = Object.assign(new Error('x'), { responseHeaders: new Headers({ 'x-echo': KEY }) })
    expect(redactSecret(new ModelError('AUTH', 'x', { cause: withHeaders }), KEY).cause).toBeUndefined()
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const clean = new ModelError('SERVER', 'boom', { cause: cyclic })
    expect(redactSecret(clean, KEY)).toBe(clean)
  })

  it('returns the error itself when the key appears nowhere (or there is no key)', () => {
    const error = new ModelError('SERVER', 'boom', { cause: new Error('inner') })
    expect(redactSecret(error, KEY)).toBe(error)
    expect(redactSecret(error, undefined)).toBe(error)
  })
})

describe('modelErrorFromResponse', () => {
  it('types the error by status and body, keeps the provider message and the wait', () => {
    const limited = modelErrorFromResponse('OpenAI', 429, h({ 'retry-after': '3' }), '{"error":{"message":"Rate limit reached"}}')
    expect([limited.code, limited.status, limited.retryable, limited.retryAfterMs, limited.message]).toEqual([
      'RATE_LIMIT', 429, true, 3000, 'OpenAI answered HTTP 429: Rate limit reached',
    ])
    const auth = modelErrorFromResponse('Anthropic', 401, h({}), '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}')
    expect([auth.code, auth.retryable]).toEqual(['AUTH', false])
    expect(auth.message).toContain('apiKeyEnv')
    const long = modelErrorFromResponse('DeepSeek', 400, h({}), '{"error":{"message":"This model\'s maximum context length is 65536 tokens"}}')
    expect(long.code).toBe('CONTEXT_WINDOW_EXCEEDED')
    expect(modelErrorFromResponse('vLLM', 503, h({}), '<html>Service Unavailable</html>').code).toBe('SERVER')
    expect(BosunError.is(long, 'CONTEXT_WINDOW_EXCEEDED')).toBe(true)
  })
})

describe('withIdleTimeout', () => {
  it('passes items through and fails a stalled source with TIMEOUT', async () => {
    async function* stalls() {
      yield 1
      await new Promise(() => {})
    }
    const seen: number[] = []
    const error = await (async () => {
      for await (const item of withIdleTimeout(stalls(), 30, 'The test server')) seen.push(item)
    })().catch((e: unknown) => e)
    expect(seen).toEqual([1])
    expect(BosunError.is(error, 'TIMEOUT')).toBe(true)
    expect((error as Error).message).toBe('The test server sent nothing for 30 ms; the connection looks stalled.')
  })

  it('closes the source when the consumer stops early, so its socket and timers do not outlive the call', async () => {
    let closed = false
    async function* endless() {
      try {
        for (let n = 0; ; n++) yield n
      } finally {
        closed = true
      }
    }
    for await (const item of withIdleTimeout(endless(), 60_000, 'The test server')) if (item === 2) break
    expect(closed).toBe(true)
  })

  it('does not ask a source that ended by itself to close again', async () => {
    let returns = 0
    const source: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => {
        let n = 0
        return {
          next: async () => (n < 2 ? { done: false, value: n++ } : { done: true, value: undefined }),
          return: async () => {
            returns++
            return { done: true, value: undefined }
          },
        }
      },
    }
    const seen: number[] = []
    for await (const item of withIdleTimeout(source, 60_000, 'The test server')) seen.push(item)
    expect(seen).toEqual([0, 1])
    expect(returns).toBe(0)
  })
})
