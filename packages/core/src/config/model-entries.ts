import type { JsonSchema } from '../schema.js'
import { schemaErrors } from './ajv-messages.js'
import { isAdapterDefinition, isModelAdapter, resolveEntry, type EntryAt, type EntryContext, type EntryResult, type ResolvedOptions } from './entries.js'
import { childPath } from './problems.js'
import { MODEL_ENTRY_KEYWORD, MODEL_ENTRY_SCHEMA } from './schema.js'
import type { ResolvedConfig } from './types.js'

/** A model entry resolved: the adapter's definition with its options, or (from code) a ready adapter. */
export type ResolvedModel = ResolvedConfig['model']

/**
 * Resolves one model entry `{ adapter, options? }` — the config's `model` or one nested in an
 * entry's options: a ready adapter is taken as it is (and refuses options), anything else is an
 * adapter entry, found, checked and its options validated against the adapter's schema.
 */
export async function resolveModelEntry(
  context: EntryContext,
  entry: { adapter: unknown; options?: unknown },
  at: EntryAt & { optionsPath: string },
): Promise<EntryResult<ResolvedModel>> {
  const { adapter: spec, options } = entry
  if (typeof spec !== 'string' && !isAdapterDefinition(spec) && isModelAdapter(spec)) {
    if (options === undefined) return { value: { adapter: spec }, problems: [] }
    const message = 'options cannot be given to an adapter that is already created; pass them when you create it.'
    return { value: undefined, problems: [{ path: at.optionsPath, message }] }
  }
  const result = await resolveEntry(context, 'adapter', spec, options, at, isAdapterDefinition)
  const name = typeof spec === 'string' ? spec : result.value?.name
  return { value: result.value && { definition: result.value, options: result.options, name: name! }, problems: result.problems }
}

/**
 * Finds the options an entry's schema marks as model entries (`"x-bosun-model": true`, under
 * `properties` and `items` at any depth), checks each against the one model-entry shape and
 * resolves it at its own path (`$.plugins[0][1].model.adapter`). Returns the options with each
 * resolved entry given as `{ adapter: <definition>, options }` — what the module also accepts
 * from code — and leaves the rest of the options as they were.
 */
export async function resolveModelEntries(context: EntryContext, schema: JsonSchema, options: unknown, path: string): Promise<ResolvedOptions> {
  const found = findModelEntries(schema, options, path, [])
  if (found.length === 0) return { options, problems: [], failed: [] }
  const problems: ResolvedOptions['problems'] = []
  const failed: string[] = []
  let resolvedOptions = options
  for (const { value, path: at, keys } of found) {
    const shape = schemaErrors(MODEL_ENTRY_SCHEMA, value, at)
    const result: EntryResult<ResolvedModel> =
      shape.length > 0
        ? { value: undefined, problems: shape.map((error) => ({ path: error.path, message: error.message })) }
        : await resolveModelEntry(context, value as { adapter: unknown; options?: unknown }, {
            path: childPath(at, 'adapter'),
            optionsPath: childPath(at, 'options'),
            nested: true,
          })
    problems.push(...result.problems)
    if (result.value === undefined || result.problems.length > 0) failed.push(at)
    else if ('definition' in result.value) {
      const { definition, options: adapterOptions } = result.value
      resolvedOptions = replaceAt(resolvedOptions, keys, adapterOptions === undefined ? { adapter: definition } : { adapter: definition, options: adapterOptions })
    }
  }
  return { options: resolvedOptions, problems, failed }
}

interface FoundEntry {
  value: unknown
  path: string
  keys: readonly (string | number)[]
}

function findModelEntries(schema: unknown, value: unknown, path: string, keys: readonly (string | number)[]): FoundEntry[] {
  if (typeof schema !== 'object' || schema === null || value === undefined) return []
  const node = schema as JsonSchema
  if (node[MODEL_ENTRY_KEYWORD] === true) return [{ value, path, keys }]
  const found: FoundEntry[] = []
  const properties = node['properties']
  if (typeof properties === 'object' && properties !== null && isRecord(value)) {
    for (const [key, sub] of Object.entries(properties)) {
      if (Object.hasOwn(value, key)) found.push(...findModelEntries(sub, value[key], childPath(path, key), [...keys, key]))
    }
  }
  // A map of named entries (`agents: { <name>: { model } }`): every key not listed in `properties`.
  const additional = node['additionalProperties']
  if (typeof additional === 'object' && additional !== null && isRecord(value)) {
    const listed = typeof properties === 'object' && properties !== null ? properties : {}
    for (const [key, item] of Object.entries(value)) {
      if (!Object.hasOwn(listed, key)) found.push(...findModelEntries(additional, item, childPath(path, key), [...keys, key]))
    }
  }
  const items = node['items']
  if (typeof items === 'object' && items !== null && !Array.isArray(items) && Array.isArray(value)) {
    value.forEach((item, index) => found.push(...findModelEntries(items, item, childPath(path, index), [...keys, index])))
  }
  return found
}

/** A copy of `root` with the value at `keys` replaced; the objects along the way are copied, the config is not changed. */
function replaceAt(root: unknown, keys: readonly (string | number)[], replacement: unknown): unknown {
  if (keys.length === 0) return replacement
  const [key, ...rest] = keys
  if (Array.isArray(root)) return root.map((item, index) => (index === key ? replaceAt(item, rest, replacement) : item))
  const record = root as Record<string, unknown>
  return { ...record, [key!]: replaceAt(record[key!], rest, replacement) }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
