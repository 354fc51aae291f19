// "Did you mean" for an unknown key or name: U3 wrote rate-limit's `perMinute` and was offered
// `per` — a name that starts the one typed — where `turnsPerMinute`, which holds it, was meant.
import { describe, expect, it } from 'vitest'
import { suggest } from './problems.js'

describe('suggest', () => {
  it('a name held by a longer one is that one, before a shorter name it starts with', () => {
    expect(suggest('perMinute', ['per', 'turnsPerMinute', 'onLimit'])).toBe('turnsPerMinute')
    expect(suggest('PerMinute', ['turnsPerMinute', 'per'])).toBe('turnsPerMinute')
  })

  it('still: a typo within two edits, a prefix either way, and nothing for a name close to none', () => {
    expect(suggest('plugns', ['plugins', 'tools'])).toBe('plugins')
    expect(suggest('plugin', ['plugins', 'tools'])).toBe('plugins')
    expect(suggest('maxAttemptsCount', ['maxAttempts', 'maxDelayMs'])).toBe('maxAttempts')
    expect(suggest('zebra', ['plugins', 'tools'])).toBeUndefined()
    // Two letters hold nothing: "id" is in "sidecar" but means neither.
    expect(suggest('id', ['sidecar'])).toBeUndefined()
  })

  it('of two names holding it, the one it covers most', () => {
    expect(suggest('retry', ['maxRetryDelayMs', 'retryOn'])).toBe('retryOn')
  })
})
