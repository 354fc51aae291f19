import { BosunError, ErrorCodes } from '../errors.js'
import { compileOptionsValidator, withCheckedOptions, type JsonSchema } from '../schema.js'
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
  create(options: Options, context: StoreContext): Store | Promise<Store>
}

/**
 * Declares a store package's entry point.
 *
 * @example
 * export default defineStore({ name: 'store-jsonl', schema, create: (options, { baseDir }) => jsonlStore({ ...options, dir: resolve(baseDir, options.dir) }) })
 */
export function defineStore<Options>(definition: Omit<StoreDefinition<Options>, 'kind'>): StoreDefinition<Options> {
  if (typeof definition?.name !== 'string' || definition.name.length === 0) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, 'defineStore() needs a non-empty "name".')
  }
  if (typeof definition.create !== 'function') {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Store "${definition.name}" needs a "create(options, context)" function.`)
  }
  const store = Object.freeze({ ...definition, kind: 'bosun-store' as const })
  if (store.schema) compileOptionsValidator(store, store.schema)
  return store
}

/**
 * Validates `options` against the store's schema, then creates the store. The options are
 * checked once: a `create` that hands those very options to the store's own function, which checks
 * them with {@link assertOptions} (so that a code caller's are checked too), is told they were just
 * checked — see {@link withCheckedOptions}. A `create` that passes a copy (a path resolved against
 * `baseDir`) has its copy checked again.
 */
export async function createStore<Options>(
  definition: StoreDefinition<Options>,
  options: unknown,
  context: StoreContext = { baseDir: process.cwd() },
): Promise<Store> {
  const value = options ?? {}
  if (!definition.schema) return definition.create(value as Options, context)
  compileOptionsValidator(definition, definition.schema)(value, `store "${definition.name}"`)
  return withCheckedOptions(definition.schema, value, () => definition.create(value as Options, context))
}
