import { describe, expect, it } from 'vitest'
import { INTERN_CAPACITY, INTERN_MAX_LENGTH, internString, isNameKey } from './intern.js'
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
    // Two strings of 18–23 characters are ~40 bytes each when copied per event (~80 saved when
    // shared; ~0 when not). More than one string's worth: a fresh-clone run beside stress-ng read
    // 59.3 against a mark of 60, the two readings' noise under load.
    expect(plain - shared).toBeGreaterThan(45)
  })

  it('leaves text alone: only the values of name-like keys are shared', () => {
    const line = JSON.stringify({ text: 'some user text', id: 'an-id-of-twenty-chars', data: { arguments: '{"key":"value"}' } })
    const plain = bytesPerValue(20_000, () => deepFreeze(JSON.parse(line)))
    const frozen = bytesPerValue(20_000, () => freezeParsedJson(JSON.parse(line), { mark: false }))
    // Shared, the three strings would save ~40 bytes each per line.
    expect(Math.abs(plain - frozen)).toBeLessThan(20)
    expect(isNameKey('type') && isNameKey('name') && isNameKey('tools')).toBe(true)
    expect(isNameKey('text') || isNameKey('id') || isNameKey('__proto__')).toBe(false)
  })

  it('keeps at most its capacity of strings alive, however many distinct ones it sees', () => {
    const distinct = 20 * INTERN_CAPACITY
    const retained = bytesPerValue(1, () => {
      for (let i = 0; i < distinct; i++) internString(`distinct-short-${i}`.padEnd(24, '.'))
      return undefined
    }, 1) // one round: a second would intern the same strings again, which keeps nothing new
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

  it('walks own keys only: an enumerable key on Object.prototype is neither frozen nor copied in', () => {
    const inherited = { kind: 'not-the-parsed-values' }
    Object.defineProperty(Object.prototype, 'internTestInherited', { value: inherited, enumerable: true, configurable: true, writable: true })
    try {
      const value = freezeParsedJson(JSON.parse('{"type":"assistant/chunk","data":{"text":"hi"}}'))
      expect(Object.isFrozen(value.data)).toBe(true)
      expect(Object.isFrozen(inherited)).toBe(false)
      expect(Object.keys(value)).toEqual(['type', 'data'])
    } finally {
      delete (Object.prototype as Record<string, unknown>)['internTestInherited']
    }
  })

  it('leaves the root unmarked with mark: false', () => {
    const value = freezeParsedJson(JSON.parse('{"type":"assistant/message"}'), { mark: false })
    expect(Object.isFrozen(value)).toBe(true)
    expect(isFrozenJson(value)).toBe(false)
  })

  it('keeps an own "__proto__" key a key, and the prototype untouched', () => {
    internString('shared-proto-value')
    const value = freezeParsedJson(JSON.parse('{"__proto__":"shared-proto-value","type":"shared-proto-value"}'))
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.hasOwn(value, '__proto__')).toBe(true)
    expect(value).toEqual(JSON.parse('{"__proto__":"shared-proto-value","type":"shared-proto-value"}'))
  })
})

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) deepFreeze(item)
  return Object.freeze(value)
}
