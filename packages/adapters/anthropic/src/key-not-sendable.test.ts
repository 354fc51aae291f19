// A key that fetch cannot put in a header — a line break or a character beyond Latin-1 inside it
// (a typographic quote pasted with it) — failed every request before anything was sent, as a
// retryable TRANSPORT error that the retry plugin sent again in vain. It is refused when the
// adapter is made (AUTH, as a missing key is), naming the variable, never quoting the key.
import { ModelError } from '@bosun/core'
import { afterEach, describe, expect, it } from 'vitest'
import { anthropic } from './adapter.js'

const VARIABLE = 'BOSUN_TEST_ANTHROPIC_UNSENDABLE_KEY'
afterEach(() => {
  delete process.env[VARIABLE]
})

describe('a key that cannot be sent in a header', () => {
  const keys = [
    { name: 'a typographic quote inside', key: 'sk-ant-api03-abc\u2019def0123456789' },
    { name: 'a line break inside', key: 'sk-ant-api03-abcdef0123\nsk-ant-456789' },
  ]
  for (const { name, key } of keys) {
    it(`${name}: AUTH (not retryable) when the adapter is made, naming the variable, not the key`, () => {
      process.env[VARIABLE] = key
      let error: unknown
      try {
        anthropic({ baseURL: 'http://127.0.0.1:9', model: 'm', apiKeyEnv: VARIABLE })
      } catch (thrown) {
        error = thrown
      }
      expect(error).toBeInstanceOf(ModelError)
      const refused = error as ModelError
      expect([refused.code, refused.retryable]).toEqual(['AUTH', false])
      expect(refused.message).toContain(VARIABLE)
      expect(refused.message).toContain('cannot be sent in an HTTP header')
      expect(refused.message).not.toMatch(/abc|0123|4567/)
      expect(refused.cause).toBeUndefined()
    })
  }
})
