import type { ErrorObject, ValidateFunction } from 'ajv'
import { ajv, expectedAt, schemaAt, valueAt, type JsonSchema } from '../schema.js'
import { KEEP_CREDENTIALS_OUT, looksLikeCredential } from './credentials.js'
import { childPath, describeValue, suggest } from './problems.js'

/** One schema error, with its path under `base` (the entry's options path, or the config root). */
export interface SchemaError {
  path: string
  /** JSON pointer of the value in error, relative to the validated value. */
  pointer: string
  message: string
}

/**
 * Validates `value` against `schema` and returns every error: `anyOf` alternatives collapse into
 * one "must be …" (from the schema's `x-expected`), unknown keys get a "did you mean" from the
 * schema's own properties, and each message says what was found — never a value (or key) that
 * looks like a credential. ajv caches the compiled schema by object, so each schema is compiled
 * once per process.
 */
export function schemaErrors(schema: JsonSchema, value: unknown, base: string): SchemaError[] {
  let validate: ValidateFunction
  try {
    validate = ajv().compile(schema)
  } catch (error) {
    // definePlugin and defineStore compile at definition; an adapter's schema is first compiled here.
    const message = `the module's options schema is not a valid JSON Schema (${(error as Error).message}); this is a bug in the module, not in your config.`
    return [{ path: base, pointer: '', message }]
  }
  if (validate(value)) return []
  const errors: SchemaError[] = []
  for (const error of validate.errors ?? []) {
    if (error.schemaPath.includes('/anyOf/')) continue
    errors.push({ path: errorPath(base, error), pointer: error.instancePath, message: describe(error, schema, value) })
  }
  return errors
}

/** The JSON path of the value in error (of the property itself for `required` and `additionalProperties`). */
function errorPath(base: string, error: ErrorObject): string {
  let path = base
  for (const part of error.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
    path = childPath(path, /^\d+$/.test(key) ? Number(key) : key)
  }
  if (error.keyword === 'required') return childPath(path, (error.params as { missingProperty: string }).missingProperty)
  if (error.keyword === 'additionalProperties') return childPath(path, (error.params as { additionalProperty: string }).additionalProperty)
  return path
}

function describe(error: ErrorObject, schema: JsonSchema, root: unknown): string {
  const found = describeValue(valueAt(root, error.instancePath))
  switch (error.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties': {
      const name = (error.params as { additionalProperty: string }).additionalProperty
      if (looksLikeCredential(name)) return `unknown key that looks like a credential, not shown: ${KEEP_CREDENTIALS_OUT}.`
      const key = JSON.stringify(name)
      const parent = schemaAt(schema, error.schemaPath.replace(/\/additionalProperties$/, ''))
      const known = Object.keys((parent?.['properties'] as object | undefined) ?? {})
      const guess = suggest(name, known)
      if (guess !== undefined) return `unknown key ${key} — did you mean ${JSON.stringify(guess)}?`
      return known.length > 0 ? `unknown key ${key}; the known keys are ${known.join(', ')}.` : `unknown key ${key}.`
    }
    case 'anyOf': {
      const expected = expectedAt(schema, error.schemaPath.replace(/\/anyOf$/, ''))
      return expected !== undefined ? `must be ${expected} (found ${found})` : `${error.message ?? 'is invalid'} (found ${found})`
    }
    case 'type': {
      // A property whose JSON type alone does not say what to give (a model object that only
      // code can make) carries its own `x-expected` phrase.
      const expected = expectedAt(schema, error.schemaPath.replace(/\/type$/, ''))
      if (expected !== undefined) return `must be ${expected} (found ${found})`
      const types = String((error.params as { type: string | string[] }).type).split(',')
      return `must be ${types.map(article).join(' or ')} (found ${found})`
    }
    case 'minLength': {
      const limit = (error.params as { limit: number }).limit
      return limit === 1 ? `must not be empty (found ${found})` : `must be at least ${limit} characters long (found ${found})`
    }
    case 'maxLength':
      return `must be at most ${(error.params as { limit: number }).limit} characters long (found ${found})`
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')} (found ${found})`
    default:
      // ajv's own messages name the rule (`must be >= 1`, `must match pattern "…"`), never the value.
      return `${error.message ?? 'is invalid'} (found ${found})`
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

