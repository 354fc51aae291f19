import type { ErrorObject, ValidateFunction } from 'ajv'
import { ajv, generatedValidator, problemPath, schemaProblems, type JsonSchema } from '../schema.js'

/** One schema error, with its path under `base` (the entry's options path, or the config root). */
export interface SchemaError {
  path: string
  /** JSON pointer of the value in error, relative to the validated value. */
  pointer: string
  message: string
}

/**
 * Validates `value` against `schema` and returns every error, each message as `createAdapter` and
 * a plugin's options give it from code ({@link schemaProblems}): a config only adds where — the
 * value's key path under `base`. ajv caches the compiled schema by object, so each schema is
 * compiled once per process.
 */
export function schemaErrors(schema: JsonSchema, value: unknown, base: string): SchemaError[] {
  let validate: ValidateFunction
  try {
    validate = generatedValidator(schema) ?? ajv().compile(schema)
  } catch (error) {
    // definePlugin and defineStore compile at definition; an adapter's schema is first compiled here.
    const message = `the module's options schema is not a valid JSON Schema (${(error as Error).message}); this is a bug in the module, not in your config.`
    return [{ path: base, pointer: '', message }]
  }
  if (validate(value)) return []
  const errors = validate.errors ?? []
  return schemaProblems(errors, schema, value).map(({ pointer, keys, message }) => ({ path: problemPath(base, keys), pointer, message }))
}
