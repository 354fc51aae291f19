/**
 * Walking what a config (or a code caller's options) spells out: plain objects and arrays, not
 * the objects a constructor made. Shared by the checks that look at every string of the options
 * (literal secrets, `…Env` names), so that they agree on what they look at.
 */

/**
 * The schema keyword that marks a subtree as the user's data, not options: a scripted tool call's
 * `args`, a payload sent as given. The checks that read option keys (`…Env` names a variable,
 * `apiKey` holds a secret) do not walk into it — there a key is whatever the data's author chose
 * (`targetEnv: "eu-west-1"`). The schema says it, so that code and config files agree.
 */
export const DATA_KEYWORD = 'x-bosun-data'

/** An object a config spells out (`{…}` in JSON, YAML or TS), as opposed to one a constructor made. */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The keys and values of a plain object or an array, in order. An array's every index, a hole
 * (`new Array(3)`, `[1, , 3]` from code) as `undefined` — left out, as JSON.stringify writes it
 * null — where `map` would skip it and leave a hole in the list.
 */
export function childrenOf(value: object): [string | number, unknown][] {
  return Array.isArray(value) ? Array.from(value, (child, index): [number, unknown] => [index, child]) : Object.entries(value)
}

/** A string found by {@link plainStrings}: the keys from the walked value to it, and the string. */
export interface PlainString {
  keys: (string | number)[]
  value: string
  /** Under a subtree the schema marks {@link DATA_KEYWORD}: its keys are the data's, not options. */
  data: boolean
}

type SchemaNode = Record<string, unknown>

/**
 * Every string in `value` through plain objects and arrays, in document order, each with its keys.
 * An object made by a constructor (an AI SDK model, a client) keeps its own fields, which could
 * look like secrets without being written by the user: it is not entered. With `schema` (the
 * options' JSON Schema), the strings in a subtree it marks {@link DATA_KEYWORD} are flagged `data`.
 * Iterative, and each object visited once per schema context, so that neither deep nesting nor a
 * cycle (from code) can overflow.
 */
export function plainStrings(value: unknown, schema?: object): PlainString[] {
  const found: PlainString[] = []
  // Each object once per schema context (the sub-schemas reached, or data): an object shared
  // between a place where part of it is data and one where it is all options is walked at both,
  // so that the mark cannot hide its options; the contexts are finite, so a cycle still ends.
  const seen = new Map<object, Set<string>>()
  const ids = new Map<SchemaNode, number>()
  const contextOf = (schemas: Reached[], data: boolean) =>
    data ? 'data' : schemas.map(({ node, sure }) => `${ids.get(node) ?? ids.set(node, ids.size).get(node)}${sure ? '' : '?'}`).sort().join(',')
  const root = schema as SchemaNode | undefined
  const stack: { value: unknown; keys: (string | number)[]; schemas: Reached[]; data: boolean }[] = [
    { value, keys: [], schemas: root ? [{ node: root, sure: true }] : [], data: false },
  ]
  while (stack.length > 0) {
    const { value: item, keys, schemas: given, data: above } = stack.pop()!
    const schemas = root && !above ? applicable(root, given) : []
    const data = above || schemas.some(({ node, sure }) => sure && alwaysData(root!, node, new Set()))
    if (typeof item === 'string') {
      if (keys.length > 0) found.push({ keys, value: item, data })
      continue
    }
    if (typeof item !== 'object' || item === null) continue
    if (!Array.isArray(item) && !isPlainObject(item)) continue
    const context = contextOf(schemas, data)
    const contexts = seen.get(item) ?? seen.set(item, new Set()).get(item)!
    if (contexts.has(context)) continue
    contexts.add(context)
    const children = childrenOf(item)
    // Pushed last to first: popped in document order.
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i]!
      stack.push({ value: child, keys: [...keys, key], schemas: schemas.flatMap(({ node, sure }) => childSchemas(node, key).map((sub) => ({ node: sub, sure }))), data })
    }
  }
  return found
}

/**
 * A sub-schema that describes a value, and whether it surely applies to it. A branch of
 * `anyOf`/`oneOf`, a `then` or an `else` may not (the value takes another shape): a mark there,
 * or under it, could hide the options of the shape the value does take, so it is not trusted.
 */
interface Reached {
  node: SchemaNode
  sure: boolean
}

/** `schemas` with every sub-schema that applies to the same value: allOf/anyOf/oneOf branches, if/then/else, local `$ref`s. */
function applicable(root: SchemaNode, schemas: Reached[]): Reached[] {
  const all: Reached[] = []
  const pending = [...schemas]
  while (pending.length > 0) {
    const reached = pending.pop()!
    if (all.some(({ node, sure }) => node === reached.node && (sure || !reached.sure))) continue
    all.push(reached)
    const { node, sure } = reached
    pending.push(...nodes(node['allOf']).map((sub) => ({ node: sub, sure })))
    const ref = typeof node['$ref'] === 'string' ? resolveRef(root, node['$ref']) : undefined
    if (ref) pending.push({ node: ref, sure })
    for (const branches of [node['anyOf'], node['oneOf'], [node['then'], node['else']]]) {
      pending.push(...nodes(branches).map((sub) => ({ node: sub, sure: false })))
    }
  }
  return all
}

/**
 * Whether `node` marks its value as data whatever shape the value takes: marked itself, through
 * `allOf` or a `$ref`, or on every branch of an `anyOf`/`oneOf`, or on both `then` and `else`.
 * `open` holds the nodes being looked at, so that a `$ref` cycle ends (as not data).
 */
function alwaysData(root: SchemaNode, node: SchemaNode, open: Set<SchemaNode>): boolean {
  if (node[DATA_KEYWORD] === true) return true
  if (open.has(node)) return false
  open.add(node)
  const every = (branches: SchemaNode[]) => branches.length > 0 && branches.every((sub) => alwaysData(root, sub, open))
  const ref = typeof node['$ref'] === 'string' ? resolveRef(root, node['$ref']) : undefined
  const data =
    nodes(node['allOf']).some((sub) => alwaysData(root, sub, open)) ||
    (ref !== undefined && alwaysData(root, ref, open)) ||
    every(nodes(node['anyOf'])) ||
    every(nodes(node['oneOf'])) ||
    (node['then'] !== undefined && node['else'] !== undefined && every(nodes([node['then'], node['else']])))
  open.delete(node)
  return data
}

/** The sub-schemas of `node` that describe its value's `key`. */
function childSchemas(node: SchemaNode, key: string | number): SchemaNode[] {
  if (typeof key === 'number') {
    const prefix = Array.isArray(node['prefixItems']) ? node['prefixItems'] : Array.isArray(node['items']) ? node['items'] : undefined
    if (prefix !== undefined) return nodes([key < prefix.length ? prefix[key] : Array.isArray(node['items']) ? node['additionalItems'] : node['items']])
    return nodes([node['items']])
  }
  const properties = (asNode(node['properties']) ?? {}) as SchemaNode
  const named = Object.hasOwn(properties, key) ? nodes([properties[key]]) : []
  const patterns = Object.entries(asNode(node['patternProperties']) ?? {})
    .filter(([pattern]) => matches(pattern, key))
    .flatMap(([, sub]) => nodes([sub]))
  if (named.length > 0 || patterns.length > 0) return [...named, ...patterns]
  return nodes([node['additionalProperties']])
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key)
  } catch {
    return false
  }
}

/** A local reference (`#/definitions/x`, `#/$defs/x`); another document's is not followed. */
function resolveRef(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const part of ref.slice(1).split('/').slice(1)) node = asNode(node)?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')]
  return asNode(node)
}

function nodes(values: unknown): SchemaNode[] {
  return (Array.isArray(values) ? (values as unknown[]) : [values]).flatMap((value): SchemaNode[] => {
    const node = asNode(value)
    return node === undefined ? [] : [node]
  })
}

function asNode(value: unknown): SchemaNode | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as SchemaNode) : undefined
}
