import { BosunError, ErrorCodes } from './errors.js'
import { INTERN_MAX_LENGTH, PARSED_SHARED_MAX_LENGTH, internString, isNameKey } from './intern.js'

/** A JSON value, as stored in the event log. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** Lets a subclass's field initialisers run on any object: `new (class extends Stamp { #x })(o)` brands `o`. */
class Stamp {
  constructor(target: object) {
    return target
  }
}

/**
 * A private brand: an unforgeable mark on objects. A private class field rather than a symbol
 * property (symbols can be read off an object with `Object.getOwnPropertySymbols` and copied onto
 * another one, and a symbol lookup follows the prototype chain and proxy traps) or a WeakSet (an
 * entry per appended event made every garbage collection pay for the whole log). `#mark in o`
 * is true only for objects branded here themselves. Brand before freezing.
 */
export interface Brand {
  stamp(value: object): void
  has(value: object): boolean
  /**
   * `has` with an inline cache of its own, for one hot caller that sees few shapes: `has` serves
   * every copy in the process, sees every data shape and is megamorphic (~100 instructions a test,
   * callgrind); V8 answers a monomorphic test with a map check.
   */
  hasFew(value: object): boolean
}

export function createBrand(): Brand {
  class Branded extends Stamp {
    #mark = true
    static has(value: object): boolean {
      return #mark in value
    }
    static hasFew(value: object): boolean {
      return #mark in value
    }
  }
  return {
    stamp: (value) => {
      if (!Branded.has(value)) new Branded(value)
    },
    has: Branded.has,
    hasFew: Branded.hasFew,
  }
}

/**
 * Marks values checked and deep-frozen by {@link toFrozenJson} (and loaded by
 * {@link freezeParsedJson}): reusing them keeps appends cheap when the same message travels
 * through several events (splice, user/message).
 */
const CHECKED = createBrand()

function isChecked(value: object): boolean {
  return CHECKED.has(value)
}

function mark<T extends object>(value: T): T {
  CHECKED.stamp(value)
  return value
}

/**
 * Validates that `value` is plain JSON and returns a deep-frozen copy of it (or `value` itself
 * when it was produced by this function before). Properties whose value is `undefined` are
 * dropped and `-0` becomes `0`, exactly as `JSON.stringify` writes them; everything else that JSON cannot represent
 * (functions, symbols, bigints, non-finite numbers, cycles, class instances, sparse arrays) is
 * refused with a {@link ErrorCodes.NOT_JSON} error naming `what` and the path of the bad value.
 *
 * Cost is proportional to the size of `value`, never to the size of the log.
 */
export function toFrozenJson<T>(value: T, what: string | (() => string), extraMark?: Brand): T {
  // The root is marked so that it can be reused (a message travels through several events); a
  // nested value that was a root before is reused too.
  if (typeof value === 'object' && value !== null && isChecked(value) && (extraMark === undefined || extraMark.has(value))) return value
  return copyRoot(value, what, extraMark === undefined ? [CHECKED] : [CHECKED, extraMark])
}

/**
 * Like {@link toFrozenJson} without marking the root: for values that are never passed on as the
 * input of another append (event data): appended events are deep-frozen but not marked.
 */
export function copyJson<T>(value: T, what: string | (() => string)): T {
  return copyRoot(value, what, undefined)
}

/**
 * The fast copy alone: a deep-frozen copy of `value`, or `undefined` if it is not plain JSON (or
 * nests deeper than the fast path goes) — the caller then takes a path that names the problem.
 */
export function tryCopyJson<T>(value: T): T | undefined {
  try {
    return fastCopy(value, 0) as T
  } catch (error) {
    if (error === SLOW_PATH) return undefined
    throw error
  }
}

function copyRoot<T>(value: T, what: string | (() => string), marks: readonly Brand[] | undefined): T {
  try {
    return fastCopy(value, 0, marks) as T
  } catch (error) {
    if (error !== SLOW_PATH) throw error
    // Refused or too deep for the fast path: the careful copy finds the cycle and names the path.
    return copy(value, typeof what === 'function' ? what() : what, [], [], marks) as T
  }
}

/** Marks are set before the freeze (a frozen object takes no new property). */
function seal<T extends object>(value: T, marks: readonly Brand[] | undefined): T {
  if (marks !== undefined) for (const brand of marks) brand.stamp(value)
  return Object.freeze(value)
}

/**
 * True if `value` came out of {@link toFrozenJson} or {@link freezeParsedJson} (messages, events
 * loaded by a store), and is therefore deep-frozen JSON. The data of an event appended in this
 * process is deep-frozen JSON too but carries no mark (marking every event cost more than copying it).
 */
export function isFrozenJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && isChecked(value)
}

/**
 * {@link isFrozenJson} of an object, for the model-chunk fast path alone (tools/result-copy.ts,
 * `plainTypedText`, on every delta): the same test through {@link Brand.hasFew}, whose inline
 * cache sees only the shapes of chunks and text blocks.
 */
export function isFrozenJsonChunk(value: object): boolean {
  return CHECKED.hasFew(value)
}

const SLOW_PATH = Symbol('bosun.json-slow-path')
/** Deeper than this, the fast path hands over to the careful copy (which detects cycles). */
const FAST_DEPTH = 64

/** The common case, with no path bookkeeping: any doubt throws {@link SLOW_PATH}. */
function fastCopy(value: unknown, depth: number, marks?: readonly Brand[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (value - value !== 0) throw SLOW_PATH // NaN and ±Infinity
      return value === 0 ? 0 : value // -0 is written as 0: the log in memory must read as it reopens
    case 'object':
      break
    default:
      throw SLOW_PATH
  }
  if (value === null) return null
  if (marks === undefined && isChecked(value)) return value
  if (depth > FAST_DEPTH) throw SLOW_PATH
  if (Array.isArray(value)) {
    const length = value.length
    const array: unknown[] = new Array(length)
    for (let i = 0; i < length; i++) {
      if (!(i in value)) throw SLOW_PATH
      array[i] = fastCopy(value[i], depth + 1)
    }
    return seal(array, marks)
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) throw SLOW_PATH
  const object: Record<string, unknown> = {}
  // for-in, not Object.keys: no array of keys per copied object (V8 walks its enum cache). The
  // prototype is Object.prototype or null here; an inherited enumerable key is skipped by hasOwn.
  for (const key in value) {
    // An own "__proto__" key (JSON.parse makes one) would set the copy's prototype if assigned.
    if (key === '__proto__' || !Object.hasOwn(value, key)) throw SLOW_PATH
    const item = (value as Record<string, unknown>)[key]
    if (item !== undefined) object[key] = fastCopy(item, depth + 1)
  }
  return seal(object, marks)
}

/**
 * `keys` and `ancestors` are the path from the root (JSON is shallow: short arrays beat a Set), and
 * the error path string is built only when a check fails.
 */
function copy(value: unknown, what: string, keys: (string | number)[], ancestors: object[], marks?: readonly Brand[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) fail(what, keys, `${value} is not a finite number`)
      return value === 0 ? 0 : value
    case 'object':
      break
    default:
      fail(what, keys, `a ${typeof value} is not JSON`)
  }
  if (value === null) return null
  if (marks === undefined && isChecked(value)) return value
  if (ancestors.includes(value)) fail(what, keys, 'the value contains a cycle')
  ancestors.push(value)
  let out: unknown
  if (Array.isArray(value)) {
    const array: unknown[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      keys.push(i)
      if (!(i in value)) fail(what, keys, 'sparse arrays are not JSON')
      array[i] = copy(value[i], what, keys, ancestors)
      keys.pop()
    }
    out = array
  } else {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) {
      fail(what, keys, `a ${proto?.constructor?.name ?? 'non-plain'} object is not JSON (use a plain object)`)
    }
    const object: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined) continue
      keys.push(key)
      const copied = copy(item, what, keys, ancestors)
      // Defined, not assigned: an own "__proto__" key stays a key, as JSON.parse reads it back.
      if (key === '__proto__') Object.defineProperty(object, key, { value: copied, enumerable: true, writable: true, configurable: true })
      else object[key] = copied
      keys.pop()
    }
    out = object
  }
  ancestors.pop()
  return seal(out as object, marks)
}

function fail(what: string, keys: readonly (string | number)[], problem: string): never {
  const path = keys.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${key}`), '$')
  throw new BosunError(ErrorCodes.NOT_JSON, `${what} is not JSON: at ${path}, ${problem}.`, {
    details: { what, path },
  })
}

/**
 * Deep-freezes, in place, a value that came straight out of `JSON.parse` (so it is JSON by
 * construction) and marks it as checked, so later appends reuse it without a copy. The string
 * values of name-like keys (`type`, `kind`, `role`, `reason`, `name`…: {@link isNameKey}) are
 * replaced by their shared copy ({@link internString}): a log read back holds one copy of each
 * event type, chunk kind or tool name, not one per event. For stores loading a log: one pass, no
 * allocation. Do not pass anything else. `mark: false` leaves the root unmarked (the JSONL store
 * freezes whole event lines: an envelope is never passed on as a message).
 */
export function freezeParsedJson<T>(value: T, options?: { mark?: boolean }): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  freezeDeep(options?.mark === false ? value : mark(value), '')
  return value
}

const hasOwnProperty = Object.prototype.hasOwnProperty

/** `key`: the key `value` is under (an array's items are under the array's key). */
function freezeDeep(value: object, key: string): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      // Assigned whatever it returns: `!==` compares strings by content, not by copy.
      if (typeof item === 'string') {
        if (worthSharing(item, key)) value[i] = internString(item)
      } else if (typeof item === 'object' && item !== null) freezeDeep(item, key)
    }
  } else {
    const record = value as Record<string, unknown>
    // for-in, not Object.keys: no array of keys per object (an open pays this per event). Own
    // keys only: an enumerable key on Object.prototype is not the parsed value's (and would be
    // found again in every object below). `hasOwnProperty.call` in a for-in over the same object
    // is the form V8 answers from the enum cache.
    for (const name in record) {
      if (!hasOwnProperty.call(record, name)) continue
      const item = record[name]
      if (typeof item === 'string') {
        if (worthSharing(item, name)) record[name] = internString(item)
      } else if (typeof item === 'object' && item !== null) freezeDeep(item, name)
    }
  }
  Object.freeze(value)
}

/** Shorter ones `JSON.parse` shares itself; longer ones, and other keys' values, are text. */
function worthSharing(value: string, key: string): boolean {
  const length = value.length
  return length > PARSED_SHARED_MAX_LENGTH && length <= INTERN_MAX_LENGTH && isNameKey(key)
}
