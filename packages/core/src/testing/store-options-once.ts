// For the tests of a store package whose definition names its path options: created from a
// config (createStore), its options are checked once, with the lines its own function gives.
import { expect } from 'vitest'
import { ajv, type JsonSchema } from '../schema.js'
import { createStore, type StoreDefinition } from '../store/define-store.js'
import type { Store } from '../store/types.js'
import type { OptionsCase } from './options-lines.js'

let checks = 0
let keyword = false

/**
 * Puts a keyword on `schema` that counts every validation against it: the check itself, not a
 * stand-in. Call it before anything compiles the schema (import the store's definition after it,
 * dynamically). Returns the count since the last call of the returned function.
 */
export function countChecks(schema: JsonSchema): () => number {
  if (!keyword) ajv().addKeyword({ keyword: 'x-test-counted', schemaType: 'boolean', validate: () => ++checks > 0 })
  keyword = true
  Object.assign(schema, { 'x-test-counted': true })
  checks = 0
  return () => {
    const counted = checks
    checks = 0
    return counted
  }
}

/** Each bad option: refused by createStore with one check, in the line `fromCode` (named `what`) gives. */
export async function expectBadOptionsCheckedOnce(definition: StoreDefinition, fromCode: (options: never) => Store, what: string, cases: readonly OptionsCase[], count: () => number, baseDir: string): Promise<void> {
  for (const [options, line] of cases) {
    count()
    const error = await createStore(definition, options, { baseDir }).then(() => undefined, (e: unknown) => e as { code: string; message: string })
    expect([error?.code, error?.message], line).toEqual(['PLUGIN_OPTIONS_INVALID', `Invalid options for store "${definition.name}":\n  - ${line}`])
    expect(count(), line).toBe(1)
    expect(() => fromCode(options as never), line).toThrow(`Invalid options for ${what}:\n  - ${line}`)
  }
}
