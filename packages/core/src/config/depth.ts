import { childPath } from './problems.js'
import { isPlainObject } from './plain-strings.js'
import type { ConfigProblem } from './types.js'

/**
 * How deep a config may nest objects and arrays, the config itself being level 1. The same limit
 * as the YAML parser's (js-yaml's `maxDepth`), so that every format refuses at the same depth —
 * and long before anything that walks the config recursively (the secrets check, ajv, a
 * plugin's setup) could overflow the stack and fail as if Bosun had a bug.
 */
export const MAX_CONFIG_DEPTH = 100

/** What to do about a config too deep, whichever check (this one, the YAML parser's) found it. */
export const FLATTEN_ADVICE = 'Flatten it; data that deep belongs in a file the plugin or tool reads, not in the config.'

/** How many keys of the too-deep path a problem shows: enough to find the place. */
const SHOWN_KEYS = 6

/**
 * A problem when `config` nests deeper than {@link MAX_CONFIG_DEPTH}, located at the first keys
 * of the path that goes too deep (and the entry that path is in); `undefined` otherwise. Walks
 * plain objects and arrays only — a ready adapter or store in a TS config is not config text —
 * and iteratively, so that the check itself cannot overflow.
 */
export function depthProblem(config: unknown, root: string): ConfigProblem | undefined {
  const stack: { value: unknown; keys: (string | number)[] }[] = [{ value: config, keys: [] }]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const { value, keys } = stack.pop()!
    if (typeof value !== 'object' || value === null || seen.has(value)) continue
    if (!Array.isArray(value) && !isPlainObject(value)) continue
    seen.add(value)
    if (keys.length >= MAX_CONFIG_DEPTH) return problem(config, root, keys)
    const children = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value)
    for (const [key, item] of children) stack.push({ value: item, keys: [...keys, key] })
  }
  return undefined
}

function problem(config: unknown, root: string, keys: readonly (string | number)[]): ConfigProblem {
  const path = keys.slice(0, SHOWN_KEYS).reduce<string>((at, key) => childPath(at, key), root)
  const message =
    `nests deeper than ${MAX_CONFIG_DEPTH} levels of objects and arrays (the limit of every config format), below this path. ${FLATTEN_ADVICE}`
  return { path, ...entryOf(config, keys), message }
}

/** The entry a path is in (`plugins[2]` → that plugin's name), to name it like any other problem. */
function entryOf(config: unknown, keys: readonly (string | number)[]): Pick<ConfigProblem, 'plugin' | 'kind'> {
  const at = (value: unknown, key: string | number | undefined) =>
    key !== undefined && typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  // An entry is named as written, or (an object from a TS config) by its own name.
  const label = (spec: unknown) => (typeof spec === 'string' ? spec : at(spec, 'name'))
  const [section, index] = keys
  if (section === 'model') {
    const adapter = label(at(at(config, 'model'), 'adapter'))
    return typeof adapter === 'string' ? { plugin: adapter, kind: 'adapter' } : {}
  }
  if (section === 'plugins' || section === 'store') {
    const entry = section === 'store' ? at(config, 'store') : at(at(config, 'plugins'), index)
    const name = label(Array.isArray(entry) ? entry[0] : entry)
    return typeof name === 'string' ? { plugin: name, kind: section === 'store' ? 'store' : 'plugin' } : {}
  }
  return {}
}
