/**
 * An immutable list for the view's lists that grow with the session (its events, its timeline
 * items, turn → item index): a 32-way trie, so a fold that appends or replaces an element copies
 * the one path to it — a few dozen slots — not the list. A plain array copied per batch made a
 * 5,000-turn replay quadratic (docs/benchmarks.md, "The web UI").
 *
 * Writes take `owned`, the set of nodes made during the current batch (draft.ts): a node made in
 * this batch is changed in place by the batch's later writes, any other is copied first, so a view
 * handed out earlier never changes. Reads are array-like where the components need them
 * (`length`, `at`, iteration, `filter`, `some`; `toJSON` for logging and tests).
 */
import { foldWork } from './fold-work.js'

const BITS = 5
const WIDTH = 1 << BITS
const MASK = WIDTH - 1

type Node = unknown[]

export class Rows<T> implements Iterable<T> {
  static empty<T>(): Rows<T> {
    return new Rows<T>(0, [], 0)
  }

  static of<T>(values: readonly T[]): Rows<T> {
    const owned = new Set<object>()
    let rows = Rows.empty<T>()
    for (const value of values) rows = rows.push(value, owned)
    return rows
  }

  /** `root`'s levels below it: `shift / 5`; the trie holds up to 32 << shift elements. */
  private constructor(readonly length: number, readonly root: Node, readonly shift: number) {}

  /**
   * Element `index` (0 … length - 1), else undefined — also for what an array would not answer
   * (NaN, a fraction, `undefined` from a malformed event's data), as `array[index]` does.
   */
  get(index: number): T | undefined {
    if (typeof index !== 'number') return typeof index === 'string' && String(Number(index)) === index ? this.get(Number(index)) : undefined
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined
    let node = this.root
    for (let level = this.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node
    return node[index & MASK] as T
  }

  /** Like `Array.prototype.at`: a negative index counts from the end, a fraction is cut, NaN is 0. */
  at(index: number): T | undefined {
    const whole = Math.trunc(Number(index)) || 0
    return this.get(whole < 0 ? whole + this.length : whole)
  }

  push(value: T, owned: Set<object>): Rows<T> {
    let root = this.root
    let shift = this.shift
    if (this.length === WIDTH << shift) {
      // Full at this depth: the old root becomes the first child of a new one.
      root = [root]
      owned.add(root)
      shift += BITS
    }
    return new Rows<T>(this.length + 1, write(root, shift, this.length, value, owned), shift)
  }

  /** Element `index` replaced; an index at or past the end appends (past it: `fill` in between). */
  set(index: number, value: T, owned: Set<object>, fill?: T): Rows<T> {
    if (index < 0 || !Number.isInteger(index)) throw new RangeError(`Rows.set: index ${index} is not a list index.`)
    if (index < this.length) return new Rows<T>(this.length, write(this.root, this.shift, index, value, owned), this.shift)
    let rows: Rows<T> = this
    while (rows.length < index) rows = rows.push(fill as T, owned)
    return rows.push(value, owned)
  }

  /** Whether `test` holds for some element (stops at the first). */
  some(test: (value: T, index: number) => boolean): boolean {
    return walk(this.root, this.shift, this.length, 0, test as (value: unknown, index: number) => boolean)
  }

  filter<S extends T>(test: (value: T, index: number) => value is S): S[]
  filter(test: (value: T, index: number) => boolean): T[]
  filter(test: (value: T, index: number) => boolean): T[] {
    const out: T[] = []
    this.some((value, index) => {
      if (test(value, index)) out.push(value)
      return false
    })
    return out
  }

  toArray(): T[] {
    return this.filter(() => true)
  }

  toJSON(): T[] {
    return this.toArray()
  }

  [Symbol.iterator](): Iterator<T> {
    return this.toArray()[Symbol.iterator]()
  }
}

/** `root` with element `index` set to `value`, copying the nodes on the way that `owned` lacks. */
function write(root: Node, shift: number, index: number, value: unknown, owned: Set<object>): Node {
  const top = editable(root, owned)
  let node = top
  for (let level = shift; level > 0; level -= BITS) {
    const slot = (index >>> level) & MASK
    const child = node[slot] as Node | undefined
    const next = child === undefined ? made(owned) : editable(child, owned)
    node[slot] = next
    node = next
  }
  node[index & MASK] = value
  return top
}

function made(owned: Set<object>): Node {
  const node: Node = []
  owned.add(node)
  return node
}

function editable(node: Node, owned: Set<object>): Node {
  if (owned.has(node)) return node
  const copy = node.slice()
  foldWork.copiedSlots += copy.length
  owned.add(copy)
  return copy
}

/** Calls `test` on the elements under `node` in order, from `first`, until it holds (then true). */
function walk(node: Node, shift: number, length: number, first: number, test: (value: unknown, index: number) => boolean): boolean {
  if (shift === 0) {
    const end = Math.min(node.length, length - first)
    for (let i = 0; i < end; i++) if (test(node[i], first + i)) return true
    return false
  }
  for (let slot = 0; slot < node.length; slot++) {
    const start = first + (slot << shift)
    if (start >= length) return false
    if (walk(node[slot] as Node, shift - BITS, length, start, test)) return true
  }
  return false
}
