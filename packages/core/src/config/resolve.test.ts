import { describe, expect, it } from 'vitest'
import { candidatePackages, isPathEntry, summarizeError } from './resolve.js'

describe('candidatePackages', () => {
  it.each([
    ['rate-limit', 'plugin', ['@bosun/plugin-rate-limit', 'bosun-plugin-rate-limit']],
    ['@acme/x', 'plugin', ['@acme/bosun-plugin-x']],
    ['@acme/bosun-plugin-x', 'plugin', ['@acme/bosun-plugin-x']],
    ['bosun-plugin-x', 'plugin', ['bosun-plugin-x']],
    ['@bosun/plugin-retry', 'plugin', ['@bosun/plugin-retry']],
    ['@acme/x/extra', 'plugin', ['@acme/bosun-plugin-x/extra']],
    ['store-jsonl', 'store', ['@bosun/plugin-store-jsonl', 'bosun-plugin-store-jsonl']],
    ['openai', 'adapter', ['@bosun/adapter-openai', 'bosun-adapter-openai']],
    ['scripted', 'adapter', ['@bosun/adapter-scripted', 'bosun-adapter-scripted']],
    ['@acme/x', 'adapter', ['@acme/bosun-adapter-x']],
    ['bosun-adapter-ollama', 'adapter', ['bosun-adapter-ollama']],
    ['@bosun/adapter-scripted', 'adapter', ['@bosun/adapter-scripted']],
    ['my-tools', 'tool', ['my-tools']],
  ] as const)('%s (%s) → %j', (name, kind, expected) => {
    expect(candidatePackages(name, kind)).toEqual(expected)
  })
})

describe('isPathEntry', () => {
  it('tells paths from package names', () => {
    expect(['./a.ts', '../a', '/abs/a.js', '.'].map(isPathEntry)).toEqual([true, true, true, true])
    expect(['a', '@acme/x', 'bosun-plugin-x', '.hidden'].map(isPathEntry)).toEqual([false, false, false, false])
  })
})

describe('summarizeError', () => {
  it('keeps the error name and the first paragraph, not a code frame', () => {
    expect(summarizeError(new TypeError('bad thing\n  at line 3\n\n  1 | secret code'))).toBe('TypeError: bad thing at line 3')
    expect(summarizeError(new Error('plain'))).toBe('plain')
    expect(summarizeError('a string')).toBe('a string')
  })
})
