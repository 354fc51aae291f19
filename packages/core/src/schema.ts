import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { BosunError, ErrorCodes } from './errors.js'

/** A JSON Schema object (draft-07 / 2019-09 keywords that ajv supports). */
export type JsonSchema = { [key: string]: unknown }

let shared: Ajv | undefined

/** One ajv instance for the process: schemas are compiled once and cached by owner. */
export function ajv(): Ajv {
  shared ??= new Ajv({ allErrors: true, strict: false, useDefaults: false })
  return shared
}

const compiled = new WeakMap<object, (value: unknown, what: string) => void>()

/**
 * Returns a validator for `schema`, compiled once per `owner` (a plugin, adapter or tool object).
 * The validator throws {@link ErrorCodes.PLUGIN_OPTIONS_INVALID} listing every error with its
 * JSON path, what was found and what was expected.
 */
export function compileOptionsValidator(
  owner: object,
  schema: JsonSchema,
  code: string = ErrorCodes.PLUGIN_OPTIONS_INVALID,
): (value: unknown, what: string) => void {
  let validator = compiled.get(owner)
  if (validator) return validator
  let fn: ValidateFunction
  try {
    fn = ajv().compile(schema)
  } catch (error) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `The options schema is not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    })
  }
  validator = (value, what) => {
    if (fn(value)) return
    // An `anyOf` with an `x-expected` sentence is reported once, with that sentence, not per branch.
    const errors = (fn.errors ?? []).filter((e) => !e.schemaPath.includes('/anyOf/') || expectedAt(schema, e.schemaPath.slice(0, e.schemaPath.lastIndexOf('/anyOf/'))) === undefined)
    const lines = errors.map((e) => `  - ${formatAjvError(e, value, schema)}`)
    throw new BosunError(code, `Invalid options for ${what}:\n${lines.join('\n')}`, {
      details: { what, paths: errors.map((e) => jsonPath(e)).join(',') },
    })
  }
  compiled.set(owner, validator)
  return validator
}

/** `$.a.b[0]`-style path of an ajv error (the property itself for `required`/`additionalProperties`). */
export function jsonPath(error: ErrorObject): string {
  let path = '$'
  for (const part of error.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
    path += /^\d+$/.test(key) ? `[${key}]` : `.${key}`
  }
  if (error.keyword === 'required') path += `.${(error.params as { missingProperty: string }).missingProperty}`
  if (error.keyword === 'additionalProperties') {
    path += `.${(error.params as { additionalProperty: string }).additionalProperty}`
  }
  return path
}

/** One line: path, what was expected, what was found. */
export function formatAjvError(error: ErrorObject, root: unknown, schema?: JsonSchema): string {
  const path = jsonPath(error)
  const found = describe(valueAt(root, error.instancePath))
  switch (error.keyword) {
    case 'anyOf': {
      const expected = schema === undefined ? undefined : expectedAt(schema, error.schemaPath.replace(/\/anyOf$/, ''))
      return `${path} ${expected === undefined ? (error.message ?? 'is invalid') : `must be ${expected}`} (found ${found})`
    }
    case 'type': {
      // A property whose type alone does not say what to give (a model object only code makes).
      const expected = schema === undefined ? undefined : expectedAt(schema, error.schemaPath.replace(/\/type$/, ''))
      return `${path} ${expected === undefined ? (error.message ?? 'is invalid') : `must be ${expected}`} (found ${found})`
    }
    case 'required':
      return `${path} is required`
    case 'additionalProperties':
      return `${path} is not a known option`
    case 'enum':
      return `${path} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')} (found ${found})`
    default:
      return `${path} ${error.message ?? 'is invalid'} (found ${found})`
  }
}

/** The sub-schema at a `#/a/b` schema path (an ajv error's `schemaPath`), or undefined. */
export function schemaAt(schema: JsonSchema, pointer: string): JsonSchema | undefined {
  let node: unknown = schema
  for (const part of pointer.replace(/^#/, '').split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return typeof node === 'object' && node !== null ? (node as JsonSchema) : undefined
}

/** The `x-expected` sentence of the sub-schema at a `#/a/b` schema path, or undefined. */
export function expectedAt(schema: JsonSchema, pointer: string): string | undefined {
  const expected = schemaAt(schema, pointer)?.['x-expected']
  return typeof expected === 'string' ? expected : undefined
}

/** The value at a JSON pointer (`/a/0/b`) in `root`, or undefined. */
export function valueAt(root: unknown, pointer: string): unknown {
  let value = root
  for (const part of pointer.split('/').slice(1)) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return value
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (typeof value === 'object') return 'an object'
  return String(value)
}
