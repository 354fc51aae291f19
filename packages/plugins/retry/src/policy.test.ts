import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { ModelError } from '@bosun/core'
import { testPlugin } from '@bosun/testkit'
import { expectConfigLines, expectPluginCodeLines, type OptionsCase } from '../../../core/src/testing/options-lines.js'
import retry from './index.js'
import { resolvePolicy } from './options.js'
import { backoffDelay, decide } from './policy.js'

describe('backoff and decisions', () => {
  it('the jittered wait always lies within [minDelayMs, maxDelayMs], whatever the random source returns', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (a, b, attempt, r) => {
          const [minDelayMs, maxDelayMs] = a <= b ? [a, b] : [b, a]
          const delay = backoffDelay(attempt, { minDelayMs, maxDelayMs, random: () => r })
          return Number.isInteger(delay) && delay >= minDelayMs && delay <= maxDelayMs
        },
      ),
    )
  })

  it('the ceiling doubles with each attempt until maxDelayMs', () => {
    const top = (attempt: number) => backoffDelay(attempt, { minDelayMs: 100, maxDelayMs: 1000, random: () => 0.999999 })
    expect([1, 2, 3, 4, 5].map(top)).toEqual([200, 400, 800, 1000, 1000])
    expect(backoffDelay(3, { minDelayMs: 100, maxDelayMs: 1000, random: () => 0 })).toBe(100)
  })

  it('samples of Math.random spread over the range', () => {
    const policy = resolvePolicy({ minDelayMs: 100, maxDelayMs: 10_000 })
    const samples = Array.from({ length: 2000 }, () => backoffDelay(6, policy))
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(100)
    expect(Math.max(...samples)).toBeLessThanOrEqual(6400)
    expect(new Set(samples).size).toBeGreaterThan(500)
  })

  it('decides from the error code, the attempt count and retryAfterMs', () => {
    const policy = resolvePolicy({ maxAttempts: 3, minDelayMs: 10, maxDelayMs: 100, random: () => 0 })
    expect(decide(new ModelError('SERVER', 'down'), 1, policy)).toEqual({ retry: true, delayMs: 10 })
    expect(decide(new ModelError('SERVER', 'down'), 3, policy)).toEqual({ retry: false, why: 'exhausted' })
    expect(decide(new ModelError('RATE_LIMIT', 'slow', { retryAfterMs: 0 }), 1, policy)).toEqual({ retry: true, delayMs: 0 })
    expect(decide(new ModelError('RATE_LIMIT', 'slow', { retryAfterMs: 101 }), 1, policy)).toEqual({ retry: false, why: 'wait-too-long' })
    expect(decide(new ModelError('AUTH', 'who'), 1, policy)).toEqual({ retry: false, why: 'not-retried' })
    expect(decide(new ModelError('ABORTED', 'stop'), 1, resolvePolicy({ retryOn: ['ABORTED'] }))).toEqual({ retry: false, why: 'not-retried' })
    expect(decide(new TypeError('bug'), 1, policy)).toEqual({ retry: false, why: 'not-retried' })
  })
})

describe('options', () => {
  it.each([
    [{}],
    [{ maxAttempts: 1 }],
    [{ maxAttempts: 10, minDelayMs: 0, maxDelayMs: 0 }],
    [{ retryOn: ['RATE_LIMIT', 'INVALID_REQUEST'] }],
    [{ retryOn: [] }],
  ])('accepts %j', async (options) => {
    await expect(testPlugin(retry, options)).resolves.toBeDefined()
  })

  it.each([
    [{ maxAttempts: 0 }, '$.maxAttempts'],
    [{ maxAttempts: 1.5 }, '$.maxAttempts'],
    [{ minDelayMs: -1 }, '$.minDelayMs'],
    [{ maxDelayMs: '1s' }, '$.maxDelayMs'],
    [{ retryOn: 'SERVER' }, '$.retryOn'],
    [{ retryOn: ['server'] }, '$.retryOn[0]'],
    [{ retryOn: ['SERVER', 'SERVER'] }, '$.retryOn'],
    [{ attempts: 3 }, '$.attempts'],
  ])('refuses %j at startup, naming %s', async (options, path) => {
    await expect(testPlugin(retry, options as never)).rejects.toMatchObject({
      code: 'PLUGIN_OPTIONS_INVALID',
      details: { paths: expect.stringContaining(path) },
    })
  })

  it('refuses a maxDelayMs no timer can wait (Node fires a wait past 2147483647 ms after 1 ms), from code and from a config file', async () => {
    const cases: OptionsCase[] = [
      [{ maxDelayMs: 2 ** 31 }, '$.maxDelayMs: must be an integer from 0 to 2147483647 (found 2147483648)'],
      [{ maxDelayMs: -1 }, '$.maxDelayMs: must be an integer from 0 to 2147483647 (found -1)'],
    ]
    await expectPluginCodeLines(retry, cases)
    await expectConfigLines(retry, cases)
    await expect(testPlugin(retry, { maxDelayMs: 2 ** 31 - 1 })).resolves.toBeDefined()
  })

  it('refuses minDelayMs above maxDelayMs — either counted at its default — with one line, from code and from a config file', async () => {
    const cases: OptionsCase[] = [
      [{ minDelayMs: 2000, maxDelayMs: 1000 }, '$.minDelayMs: must be at most maxDelayMs (1000) (found 2000)'],
      [{ minDelayMs: 90_000 }, '$.minDelayMs: must be at most maxDelayMs (60000 by default) (found 90000)'],
      [{ maxDelayMs: 100 }, '$.maxDelayMs: must be at least minDelayMs (500 by default) (found 100)'],
    ]
    await expectPluginCodeLines(retry, cases)
    await expectConfigLines(retry, cases)
    await expect(testPlugin(retry, { minDelayMs: 1000, maxDelayMs: 1000 })).resolves.toBeDefined()
    await expect(testPlugin(retry, { maxDelayMs: 500 })).resolves.toBeDefined()
  })
})
