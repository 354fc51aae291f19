import { describe, expect, it } from 'vitest'
import { satisfiesRange } from './semver.js'

describe('satisfiesRange (the @bosun/core range a plugin declares)', () => {
  it.each([
    ['0.1.0', '^0.1.0', true], ['0.1.7', '^0.1.0', true], ['0.2.0', '^0.1.0', false], ['0.0.9', '^0.1.0', false],
    ['1.4.2', '^1.2.0', true], ['2.0.0', '^1.2.0', false], ['0.0.3', '^0.0.3', true], ['0.0.4', '^0.0.3', false],
    ['1.2.9', '~1.2.3', true], ['1.3.0', '~1.2.3', false], ['1.9.0', '1.x', true], ['2.0.0', '1.x', false],
    ['5.0.0', '*', true], ['0.1.0', '>=0.1.0 <0.3.0', true], ['0.3.0', '>=0.1.0 <0.3.0', false],
    ['0.1.0', '^9.0.0 || ^0.1.0', true], ['1.4.0', '1.0.0 - 1.4.0', true], ['1.4.1', '1.0.0 - 1.4.0', false],
    ['0.1.0', '0.1.0', true], ['0.1.1', '0.1.0', false], ['1.0.0-rc.1', '^1.0.0', false], ['1.0.0-rc.2', '>=1.0.0-rc.1', true],
    ['0.1.0', 'not a range', false], ['nonsense', '*', false],
  ])('%s in %s: %s', (version, range, expected) => {
    expect(satisfiesRange(version, range)).toBe(expected)
  })
})
