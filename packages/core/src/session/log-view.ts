import { BosunError, ErrorCodes } from '../errors.js'
import type { EventLog } from './event-log.js'
import type { SessionEvent } from './events.js'
import { ReadOnlyTraps } from './read-only-view.js'

/** Core-private key: `view[LOG]` is the log behind a view (undefined on any other array). */
export const LOG: unique symbol = Symbol('bosun.eventLog')

/**
 * `Session.events` once pages are sealed: a read-only `readonly SessionEvent[]` over the whole log,
 * live (it sees later appends, as the plain array did). Index reads, `length`, iteration, `slice`,
 * `at`, `findLast`, `map`, `JSON.stringify`… work; an event of a sealed page is read back as an
 * equal frozen copy. Every write throws READ_ONLY. `structuredClone` refuses a proxy: clone
 * `[...events]`.
 *
 * The target is an empty array, so that `Array.isArray` is true and the array methods (from its
 * prototype) run over the traps below.
 */
export function logView(log: EventLog): readonly SessionEvent[] {
  const target: SessionEvent[] = []
  // util.inspect (console.log, the REPL, a test runner's output) formats a proxy by its target,
  // without running a trap: an empty array, as if the session had no history. It calls the
  // target's custom inspect with the proxy as `this`, so this prints the events.
  Object.defineProperty(target, INSPECT, { value: inspectEvents, configurable: true })
  return new Proxy<SessionEvent[]>(target, new LogViewHandler(log))
}

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

function inspectEvents(this: readonly SessionEvent[], _depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
  return inspect([...this], options)
}

/** `key` as an array index, or -1. */
function indexOf(key: string): number {
  const code = key.charCodeAt(0)
  if (code < 48 || code > 57) return -1
  const index = Number(key)
  return Number.isSafeInteger(index) && String(index) === key ? index : -1
}

function logOf(view: unknown): EventLog {
  return (view as { [LOG]: EventLog })[LOG]
}

/**
 * Read paths that would otherwise go through a trap per element (the array methods read
 * `length` and each index through the proxy): shared functions reading the log behind `this`.
 * A method taken off the view and called on something else falls back to the array's own.
 */
const FAST: Record<string, (this: unknown, ...args: never[]) => unknown> = {
  slice(this: unknown, start?: number, end?: number) {
    const log = logOf(this)
    return log === undefined ? Array.prototype.slice.call(this, start, end) : log.slice(start, end)
  },
  at(this: unknown, index: number) {
    const log = logOf(this)
    if (log === undefined) return Array.prototype.at.call(this, index)
    const integer = Math.trunc(Number(index)) || 0
    return log.at(integer < 0 ? log.length + integer : integer)
  },
  findLast(this: unknown, predicate: (event: SessionEvent, index: number, events: unknown) => unknown, thisArg?: unknown) {
    const log = logOf(this)
    if (log === undefined) return Array.prototype.findLast.call(this, predicate as never, thisArg)
    for (let seq = log.length - 1; seq >= 0; seq--) {
      const event = log.at(seq)!
      if (predicate.call(thisArg, event, seq, this)) return event
    }
    return undefined
  },
}

/** Iterates by seq, reading the length each time: a view iterated across a seal or an append stays right. */
function* values(this: unknown): IterableIterator<SessionEvent> {
  const log = logOf(this)
  if (log === undefined) {
    yield* Array.prototype.values.call(this as SessionEvent[])
    return
  }
  for (let seq = 0; seq < log.length; seq++) yield log.at(seq)!
}

class LogViewHandler extends ReadOnlyTraps<SessionEvent[]> {
  constructor(readonly log: EventLog) {
    super()
  }

  get(target: SessionEvent[], key: string | symbol, receiver: unknown): unknown {
    if (typeof key === 'string') {
      const index = indexOf(key)
      if (index >= 0) return this.log.at(index)
      if (key === 'length') return this.log.length
      if (key === 'values') return values
      const fast = FAST[key]
      if (fast !== undefined && Object.hasOwn(FAST, key)) return fast
    } else if (key === LOG) {
      return this.log
    } else if (key === Symbol.iterator) {
      return values
    }
    return Reflect.get(target, key, receiver)
  }

  has(target: SessionEvent[], key: string | symbol): boolean {
    if (typeof key === 'string') {
      const index = indexOf(key)
      if (index >= 0) return index < this.log.length
      if (key === 'length') return true
    }
    return Reflect.has(target, key)
  }

  ownKeys(): string[] {
    const keys: string[] = []
    for (let i = 0; i < this.log.length; i++) keys.push(String(i))
    keys.push('length')
    return keys
  }

  getOwnPropertyDescriptor(_target: SessionEvent[], key: string | symbol): PropertyDescriptor | undefined {
    if (key === 'length') return { value: this.log.length, writable: true, enumerable: false, configurable: false }
    const index = typeof key === 'string' ? indexOf(key) : -1
    if (index < 0 || index >= this.log.length) return undefined
    return { value: this.log.at(index), writable: false, enumerable: true, configurable: true }
  }

  refuse(): never {
    throw new BosunError(
      ErrorCodes.READ_ONLY,
      'session.events is read-only: it is a view of the session\'s log. Append with session.append(type, data); to change a copy, copy it first ([...session.events]).',
    )
  }
}
