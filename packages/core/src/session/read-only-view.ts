import { BosunError, ErrorCodes } from '../errors.js'

/**
 * A read-only view of the first `length` items of an append-only array, in O(1): what the model
 * request and plugins get instead of the surface's live history array. Reads (indexing, `length`,
 * iteration, `map`, `slice`, `JSON.stringify`) see the prefix as it was when the view was made,
 * even after later appends; every write (`push`, an index assignment, `Object.freeze`, defining or
 * deleting a property) throws, so no plugin or adapter can change the history behind the log.
 *
 * Why not a copy: the request is built every step, and a copy would make each step's cost grow
 * with the length of the history.
 */
export function readOnlyPrefix<T>(array: readonly T[], length: number, what: string): readonly T[] {
  const refuse = (): never => {
    throw new BosunError(
      ErrorCodes.READ_ONLY,
      `${what} is read-only: it is a view of the session's history. To change what the model sees, return a new request (or a new messages array) from your hook.`,
    )
  }
  const outside = (key: string | symbol): boolean => {
    if (typeof key !== 'string') return false
    const index = Number(key)
    return Number.isInteger(index) && index >= length
  }
  return new Proxy(array as T[], {
    get(target, key, receiver) {
      if (key === 'length') return length
      if (outside(key)) return undefined
      return Reflect.get(target, key, receiver)
    },
    has(target, key) {
      return outside(key) ? false : Reflect.has(target, key)
    },
    ownKeys() {
      const keys: string[] = []
      for (let i = 0; i < length; i++) keys.push(String(i))
      keys.push('length')
      return keys
    },
    getOwnPropertyDescriptor(target, key) {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false }
      if (outside(key)) return undefined
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  })
}
