import { describe, expect, it } from 'vitest'
import { INTERN_CAPACITY, INTERN_MAX_LENGTH, internString } from './intern.js'
import { freezeParsedJson, isFrozenJson } from './json.js'
import { bytesPerValue } from './testing/heap.js'

// Which copy of a string is kept is invisible to `===`: these tests read it off the heap.
// Strings over 10 characters: JSON.parse shares shorter ones itself.
const LINE = JSON.stringify({ type: 'plugin-x/some-long-type', data: { kind: 'an-enum-like-value', n: 1 } })

describe('internString', () => {
  it('returns an equal string, whatever its length', () => {
    const long = 'x'.repeat(INTERN_MAX_LENGTH + 1)
    expect(internString(long)).toBe(long)
    expect(internString('assistant/chunk')).toBe('assistant/chunk')
    expect(internString('')).toBe('')
  })

  it('makes decoded events share one copy of each short string', () => {
    const plain = bytesPerValue(20_000, () => deepFreeze(JSON.parse(LINE)))
    const shared = bytesPerValue(20_000, () => freezeParsedJson(JSON.parse(LINE), { mark: false }))
    // Two strings of 18–23 characters are ~40 bytes each when copied per event.
    expect(plain - shared).toBeGreaterThan(60)
  })

  it('keeps at most its capacity of strings alive, however many distinct ones it sees', () => {
    const distinct = 20 * INTERN_CAPACITY
    const retained = bytesPerValue(1, () => {
      for (let i = 0; i < distinct; i++) internString(`distinct-short-${i}`.padEnd(24, '.'))
      return undefined
    })
    // Unbounded, it would keep ~80 bytes (string and entry) per distinct string: ~6.5 MB.
    expect(retained).toBeLessThan(INTERN_CAPACITY * 200)
  })
})

describe('freezeParsedJson with shared strings', () => {
  it('deep-freezes and marks as before, with equal values', () => {
    const value = freezeParsedJson(JSON.parse('{"type":"assistant/message","list":["tool-call-delta",{"kind":"reasoning-delta"}]}'))
    expect(value).toEqual({ type: 'assistant/message', list: ['tool-call-delta', { kind: 'reasoning-delta' }] })
    expect(Object.isFrozen(value.list[1])).toBe(true)
    expect(isFrozenJson(value)).toBe(true)
  })

  it('leaves the root unmarked with mark: false', () => {
    const value = freezeParsedJson(JSON.parse('{"type":"assistant/message"}'), { mark: false })
    expect(Object.isFrozen(value)).toBe(true)
    expect(isFrozenJson(value)).toBe(false)
  })

  it('keeps an own "__proto__" key a key, and the prototype untouched', () => {
    internString('shared-proto-value')
    const value = freezeParsedJson(JSON.parse('{"__proto__":"shared-proto-value","a":"shared-proto-value"}'))
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.hasOwn(value, '__proto__')).toBe(true)
    expect(value).toEqual(JSON.parse('{"__proto__":"shared-proto-value","a":"shared-proto-value"}'))
  })
})

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) deepFreeze(item)
  return Object.freeze(value)
}
