/**
 * Walking what a config (or a code caller's options) spells out: plain objects and arrays, not
 * the objects a constructor made. Shared by the checks that look at every string of the options
 * (literal secrets, `…Env` names), so that they agree on what they look at.
 */

/** An object a config spells out (`{…}` in JSON, YAML or TS), as opposed to one a constructor made. */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** A string found by {@link plainStrings}: the keys from the walked value to it, and the string. */
export interface PlainString {
  keys: (string | number)[]
  value: string
}

/**
 * Every string in `value` through plain objects and arrays, in document order, each with its keys.
 * An object made by a constructor (an AI SDK model, a client) keeps its own fields, which could
 * look like secrets without being written by the user: it is not entered. Iterative, and each
 * object visited once, so that neither deep nesting nor a cycle (from code) can overflow.
 */
export function plainStrings(value: unknown): PlainString[] {
  const found: PlainString[] = []
  const seen = new Set<object>()
  const stack: { value: unknown; keys: (string | number)[] }[] = [{ value, keys: [] }]
  while (stack.length > 0) {
    const { value: item, keys } = stack.pop()!
    if (typeof item === 'string') {
      if (keys.length > 0) found.push({ keys, value: item })
      continue
    }
    if (typeof item !== 'object' || item === null || seen.has(item)) continue
    if (!Array.isArray(item) && !isPlainObject(item)) continue
    seen.add(item)
    const children: [string | number, unknown][] = Array.isArray(item) ? item.map((child, index) => [index, child]) : Object.entries(item)
    // Pushed last to first: popped in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i]![1], keys: [...keys, children[i]![0]] })
  }
  return found
}
