import { describe, expect, it } from 'vitest'
import { namesRetryPlugin, retryHint } from './retry-hint.js'

describe('namesRetryPlugin: whether a config\'s plugins, as written, include the retry plugin', () => {
  it.each([
    [['retry'], true],
    [['@bosun/plugin-retry'], true],
    [[['retry', { maxAttempts: 2 }]], true],
    // A TypeScript config that imports it names it by the plugin object.
    [[{ kind: 'bosun-plugin', name: 'retry' }], true],
    [[['step-limit', { maxSteps: 3 }], 'compaction'], false],
    [[], false],
    [undefined, false],
  ])('%j: %s', (plugins, named) => {
    expect(namesRetryPlugin(plugins)).toBe(named)
  })
})

describe('retryHint', () => {
  it('is said for a retryable RATE_LIMIT or SERVER only, and only without the plugin', () => {
    expect(retryHint({ code: 'RATE_LIMIT', retryable: true }, false)).toContain('add "retry" to its "plugins"')
    expect(retryHint({ code: 'SERVER', retryable: true }, false)).toContain('bosun plugins add retry')
    expect(retryHint({ code: 'RATE_LIMIT', retryable: true }, true)).toBeUndefined()
    expect(retryHint({ code: 'RATE_LIMIT', retryable: false }, false)).toBeUndefined()
    expect(retryHint({ code: 'TRANSPORT', retryable: true }, false)).toBeUndefined()
    expect(retryHint({ code: 'INVALID_REQUEST' }, false)).toBeUndefined()
  })
})
