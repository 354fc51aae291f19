import { resolve } from 'node:path'
import { BosunError, ErrorCodes } from '../errors.js'
import { compileOptionsValidator, UNDECLARED_OPTIONS, withCheckedOptions, type JsonSchema } from '../schema.js'
import type { Store } from './types.js'

/** What a store is created with besides its options. */
export interface StoreContext {
  /** Folder that relative paths in the options resolve from: the config file's folder (or the cwd). */
  baseDir: string
}

/**
 * What a store plugin package default-exports, so that a config file can name it
 * (`store: ['store-jsonl', { dir: '.bosun/sessions' }]`).
 */
export interface StoreDefinition<Options = unknown> {
  readonly kind: 'bosun-store'
  readonly name: string
  readonly schema?: JsonSchema
  /**
   * The options that are file or folder paths (e.g. `['dir']`): {@link createStore} resolves a
   * relative one against `baseDir` before it checks the options, so that `create` can hand the
   * very value checked to the store's own function and it is checked once. A value that is not a
   * non-empty string is left as it is, for the schema to refuse.
   */
  readonly paths?: readonly string[]
  create(options: Options, context: StoreContext): Store | Promise<Store>
}

/**
 * Declares a store package's entry point.
 *
 * @example
 * export default defineStore({ name: 'store-jsonl', schema, paths: ['dir'], create: (options) => jsonlStore(options) })
 */
export function defineStore<Options>(definition: Omit<StoreDefinition<Options>, 'kind'>): StoreDefinition<Options> {
  if (typeof definition?.name !== 'string' || definition.name.length === 0) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, 'defineStore() needs a non-empty "name".')
  }
  if (typeof definition.create !== 'function') {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Store "${definition.name}" needs a "create(options, context)" function.`)
  }
  if (definition.paths !== undefined && !(Array.isArray(definition.paths) && definition.paths.every((key) => typeof key === 'string'))) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Store "${definition.name}": "paths" must be a list of option names, e.g. ['dir'].`)
  }
  const { paths, create } = definition
  // A caller of `create` itself (not through createStore) gets relative paths resolved too; what
  // createStore resolved and checked is already absolute and passes through as the same object.
  const store = Object.freeze({
    ...definition,
    kind: 'bosun-store' as const,
    ...(paths === undefined ? {} : { create: (options: Options, context: StoreContext) => create(resolveStorePaths(paths, options, context.baseDir), context) }),
  })
  if (store.schema) compileOptionsValidator(store, store.schema)
  return store
}

/**
 * Resolves the definition's `paths` against `baseDir`, validates the options against the store's
 * schema, then creates the store. The options are checked once: a `create` that hands those very
 * options to the store's own function, which checks them with {@link assertOptions} (so that a
 * code caller's are checked too), is told they were just checked — see {@link withCheckedOptions}.
 * A `create` that passes a copy has its copy checked again.
 */
export async function createStore<Options>(
  definition: StoreDefinition<Options>,
  options: unknown,
  context: StoreContext = { baseDir: process.cwd() },
): Promise<Store> {
  const value = resolveStorePaths(definition.paths, options ?? {}, context.baseDir)
  // Without a schema too: an `…Env` option holding a key is refused before `create` can quote it.
  compileOptionsValidator(definition, definition.schema ?? UNDECLARED_OPTIONS)(value, `store "${definition.name}"`)
  if (!definition.schema) return definition.create(value as Options, context)
  return withCheckedOptions(definition.schema, value, () => definition.create(value as Options, context))
}

/**
 * `options` with each of `paths` resolved against `baseDir`: a new object when a path changed,
 * else `options` itself (an absolute path is kept as it is). Only a non-empty string is
 * resolved: an option the schema refuses is shown as it was given. {@link createStore} calls it
 * before its check, and {@link defineStore}'s `create` again, so that a caller who hands `create`
 * relative paths and a `baseDir` directly gets them resolved, while the value `createStore`
 * checked (already absolute) passes through as the very same object and is not checked again.
 */
export function resolveStorePaths<Options>(paths: readonly string[] | undefined, options: Options, baseDir: string): Options {
  if (paths === undefined || typeof options !== 'object' || options === null || Array.isArray(options)) return options
  const record = options as Record<string, unknown>
  let resolved: Record<string, unknown> | undefined
  for (const key of paths) {
    const value = record[key]
    if (!Object.hasOwn(record, key) || typeof value !== 'string' || value === '') continue
    const absolute = resolve(baseDir, value)
    if (absolute === value) continue
    resolved ??= { ...record }
    resolved[key] = absolute
  }
  return (resolved ?? options) as Options
}
