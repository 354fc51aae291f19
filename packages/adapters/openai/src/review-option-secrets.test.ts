// Security review: openai() called from code quoted the first 40 characters of a refused baseURL —
// for `https://user:key@host` that is the key. A config file's values are checked for secrets
// before the adapter sees them; options given in code were not.
import { serializeError } from '@bosun/core'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { openai } from './adapter.js'

// Checked by its first 8 characters: an error cut at 40 characters may keep only a piece of it.
// Looked for by its first 8 characters: a message cut at 40 characters may keep only a piece of it.
const PASSWORD = 'pw-Q7fK2mX9vR4tL8nB'

function refusal(baseURL: string): Error {
  try {
    openai({ model: 'm', baseURL })
  } catch (error) {
    return error as Error
  }
  throw new Error(`openai({ baseURL: ${JSON.stringify(baseURL)} }) was accepted`)
}

const shown = (error: Error): string => `${error.message}\n${JSON.stringify(serializeError(error))}\n${inspect(error, { depth: 10 })}`

describe('openai(): a refused baseURL is not quoted when it may hold a credential (review)', () => {
  it('user:password@ in an http(s) URL, and in one with another scheme or none', () => {
    for (const baseURL of [`https://user:${PASSWORD}@api.example.com/v1`, `http://${PASSWORD}@127.0.0.1:9/v1`, `ftp://user:${PASSWORD}@example.com`, `user:${PASSWORD}@example.com/v1`]) {
      const error = refusal(baseURL)
      expect(error, baseURL).toMatchObject({ code: 'INVALID_ARGUMENT', details: { paths: '$.baseURL' } })
      expect(shown(error), baseURL).not.toContain(PASSWORD.slice(0, 8))
    }
  })

  it('a key in the query of a URL without a scheme', () => {
    expect(shown(refusal(`example.com/v1?api-key=${PASSWORD}`))).not.toContain(PASSWORD.slice(0, 8))
  })

  it('a plain mistake is still quoted', () => {
    expect(refusal('api.deepseek.com').message).toContain('(found "api.deepseek.com")')
    expect(refusal('https://exa mple.com').message).toContain('(found "https://exa mple.com")')
  })
})
