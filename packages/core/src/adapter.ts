import { BosunError, ErrorCodes } from './errors.js'
import type { JsonSchema } from './schema.js'
import { compileOptionsValidator, withCheckedOptions } from './schema.js'
import type { ModelAdapter } from './model.js'

/**
 * What an adapter package default-exports, so that a config file can name it
 * (`model: { adapter: 'scripted', options: {...} }`).
 */
export interface AdapterDefinition<Options = unknown> {
  readonly kind: 'bosun-adapter'
  readonly name: string
  /** JSON Schema of the options; validated with ajv before `create`. */
  readonly schema?: JsonSchema
  create(options: Options): ModelAdapter | Promise<ModelAdapter>
}

/**
 * Declares an adapter package's entry point.
 *
 * @example
 * export default defineAdapter({ name: 'scripted', schema, create: (options) => scripted(options) })
 */
export function defineAdapter<Options>(
  definition: Omit<AdapterDefinition<Options>, 'kind'>,
): AdapterDefinition<Options> {
  if (typeof definition?.name !== 'string' || definition.name.length === 0) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, 'defineAdapter() needs a non-empty "name".')
  }
  if (typeof definition.create !== 'function') {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `Adapter "${definition.name}" needs a "create(options)" function.`)
  }
  return Object.freeze({ ...definition, kind: 'bosun-adapter' as const })
}

/**
 * Validates `options` against the adapter's schema, then creates the adapter. The options are
 * checked once: an adapter whose `create` checks them again with {@link assertOptions} (so that
 * its own function, called from code, checks them too) is told they were just checked — see
 * {@link withCheckedOptions}.
 */
export async function createAdapter<Options>(
  definition: AdapterDefinition<Options>,
  options: unknown,
): Promise<ModelAdapter> {
  const value = options ?? {}
  if (!definition.schema) return definition.create(value as Options)
  compileOptionsValidator(definition, definition.schema)(value, `adapter "${definition.name}"`)
  return withCheckedOptions(definition.schema, value, () => definition.create(value as Options))
}
