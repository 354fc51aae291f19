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
  return new Proxy(array as T[], new PrefixHandler<T>(length, what))
}

/**
 * The write traps of a read-only view: every write goes to `refuse`, which throws READ_ONLY with
 * what the view is and what to do instead. Shared by the surface's prefix views and the sealed
 * log's view (log-view.ts).
 */
export abstract class ReadOnlyTraps<T extends object> implements ProxyHandler<T> {
  set(): boolean {
    return this.refuse()
  }

  defineProperty(): boolean {
    return this.refuse()
  }

  deleteProperty(): boolean {
    return this.refuse()
  }

  setPrototypeOf(): boolean {
    return this.refuse()
  }

  preventExtensions(): boolean {
    return this.refuse()
  }

  abstract refuse(): never
}

/**
 * The traps of one view, on a prototype: a view costs its proxy and this two-field object, not a
 * closure per trap (the surface makes a view per model request).
 */
class PrefixHandler<T> extends ReadOnlyTraps<T[]> {
  constructor(
    readonly length: number,
    readonly what: string,
  ) {
    super()
  }

  #outside(key: string | symbol): boolean {
    if (typeof key !== 'string') return false
    const index = Number(key)
    return Number.isInteger(index) && index >= this.length
  }

  get(target: T[], key: string | symbol, receiver: unknown): unknown {
    if (key === 'length') return this.length
    if (this.#outside(key)) return undefined
    return Reflect.get(target, key, receiver)
  }

  has(target: T[], key: string | symbol): boolean {
    return this.#outside(key) ? false : Reflect.has(target, key)
  }

  ownKeys(): string[] {
    const keys: string[] = []
    for (let i = 0; i < this.length; i++) keys.push(String(i))
    keys.push('length')
    return keys
  }

  getOwnPropertyDescriptor(target: T[], key: string | symbol): PropertyDescriptor | undefined {
    if (key === 'length') return { value: this.length, writable: true, enumerable: false, configurable: false }
    if (this.#outside(key)) return undefined
    return Reflect.getOwnPropertyDescriptor(target, key)
  }

  refuse(): never {
    throw new BosunError(
      ErrorCodes.READ_ONLY,
      `${this.what} is read-only: it is a view of the session's history. To change what the model sees, return a new request (or a new messages array) from your hook.`,
    )
  }
}
