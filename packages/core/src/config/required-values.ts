import type { ErrorObject } from 'ajv'
import { schemaAt, type JsonSchema } from '../schema.js'

/**
 * What a missing required property may be, when its schema lists the values (`enum`, `const`, or
 * an `anyOf`/`oneOf` of those): `one of "reject", "redact"` — so that "is required" says what to
 * write (U1: content-filter's rule `action`). Undefined for a property of any other schema.
 *
 * The property's schema is looked up beside the `required` that names it, then in the schemas
 * around it when that `required` sits in an `anyOf`/`oneOf`/`allOf` branch with no properties of
 * its own; a local `$ref` (`#/…`) is followed.
 */
export function requiredValues(schema: JsonSchema, error: ErrorObject): string | undefined {
  if (error.keyword !== 'required') return undefined
  const name = (error.params as { missingProperty: string }).missingProperty
  let holder = error.schemaPath.replace(/\/required$/, '')
  for (;;) {
    const property = (schemaAt(schema, holder)?.['properties'] as Record<string, unknown> | undefined)?.[name]
    if (property !== undefined) return phrase(valuesOf(schema, property, 0))
    const outer = /^(.*)\/(?:anyOf|oneOf|allOf)\/\d+$/.exec(holder)
    if (outer === null) return undefined
    holder = outer[1]!
  }
}

/** The values a schema allows, when it lists them; undefined otherwise. `depth` bounds `$ref` cycles. */
function valuesOf(root: JsonSchema, node: unknown, depth: number): unknown[] | undefined {
  if (typeof node !== 'object' || node === null || depth > 8) return undefined
  const schema = node as JsonSchema
  if (typeof schema['$ref'] === 'string') return schema['$ref'].startsWith('#') ? valuesOf(root, schemaAt(root, schema['$ref']), depth + 1) : undefined
  if (Array.isArray(schema['enum'])) return schema['enum'] as unknown[]
  if ('const' in schema) return [schema['const']]
  const branches = schema['anyOf'] ?? schema['oneOf']
  if (!Array.isArray(branches) || branches.length === 0) return undefined
  const values: unknown[] = []
  for (const branch of branches) {
    const listed = valuesOf(root, branch, depth + 1)
    if (listed === undefined) return undefined
    values.push(...listed)
  }
  return values
}

function phrase(values: unknown[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined
  const shown = [...new Set(values.map((value) => JSON.stringify(value)))]
  return shown.length === 1 ? `must be ${shown[0]}` : `one of ${shown.join(', ')}`
}
