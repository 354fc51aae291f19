// A key that fetch cannot put in a header — a line break or a character beyond Latin-1 inside it
// (a typographic quote pasted with it) — failed every request before anything was sent, as a
// retryable TRANSPORT error ("The connection … failed: Cannot convert argument to a ByteString…")
// that the retry plugin sent again in vain. It is refused when the adapter is made, naming the
// variable, never quoting the key.
import { afterEach, describe, expect, it } from 'vitest'
import { openai } from './adapter.js'

const VARIABLE = 'BOSUN_TEST_OPENAI_UNSENDABLE_KEY'
afterEach(() => {
  delete process.env[VARIABLE]
})

function creationError(make: () => unknown): Error & { code?: string; details?: unknown } {
  try {
    make()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('the adapter was created')
}

describe('a key that cannot be sent in a header', () => {
  const keys = [
    { name: 'a typographic quote inside', key: 'sk-proj-abc\u2019def0123456789' },
    { name: 'a line break inside', key: 'sk-proj-abcdef0123\nsk-proj-456789' },
  ]
  for (const { name, key } of keys) {
    it(`${name}: CONFIG_INVALID when the adapter is made, naming the variable, not the key`, () => {
      process.env[VARIABLE] = key
      const error = creationError(() => openai({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: VARIABLE }))
      expect(error.code).toBe('CONFIG_INVALID')
      expect(error.message).toContain(VARIABLE)
      expect(error.message).toContain('cannot be sent in an HTTP header')
      expect(`${error.message} ${JSON.stringify(error.details)}`).not.toMatch(/abc|0123|4567/)
      expect(error.cause).toBeUndefined()
    })
  }

  it('the default OPENAI_API_KEY for api.openai.com too', () => {
    const saved = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = 'sk-proj-abc\u2019def0123456789'
    try {
      const error = creationError(() => openai({ model: 'gpt-4.1' }))
      expect(error.code).toBe('CONFIG_INVALID')
      expect(error.message).toContain('OPENAI_API_KEY')
      expect(error.message).not.toMatch(/abc|0123/)
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    }
  })
})
