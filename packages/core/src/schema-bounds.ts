import type { ErrorObject, FuncKeywordDefinition } from 'ajv'
import type { JsonSchema } from './schema.js'

/**
 * The keyword of a rule between two options of one object, which JSON Schema cannot state with a
 * field's default in mind: `'x-bosun-bounds': { minDelayMs: { maximum: 'maxDelayMs' } }` says
 * `minDelayMs ≤ maxDelayMs`; `exclusiveMaximum` is `<`, `minimum` `≥`, `exclusiveMinimum` `>`.
 * A field left out counts at its `default` (from the object's `properties`), so a rule holds for
 * what the options mean, not only for what they spell out.
 */
export const BOUNDS_KEYWORD = 'x-bosun-bounds'

/** The JSON Schema words a bound may use, with the words of its message. */
const RELATIONS = {
  maximum: { holds: (value: number, limit: number) => value <= limit, words: 'at most', reverse: 'minimum' },
  exclusiveMaximum: { holds: (value: number, limit: number) => value < limit, words: 'below', reverse: 'exclusiveMinimum' },
  minimum: { holds: (value: number, limit: number) => value >= limit, words: 'at least', reverse: 'maximum' },
  exclusiveMinimum: { holds: (value: number, limit: number) => value > limit, words: 'above', reverse: 'exclusiveMaximum' },
} as const

type Relation = keyof typeof RELATIONS

/** What a broken bound puts in its ajv error's `params`; {@link boundMessage} words it. */
export interface BoundParams {
  relation: Relation
  /** The other option, whose value is the limit. */
  other: string
  limit: number
  /** The other option was left out: the limit is its default. */
  byDefault: boolean
}

interface Bound {
  key: string
  relation: Relation
  other: string
}

/** One `{ key, relation, other }` per bound of the keyword's value, each checked against the object's properties. */
function boundsOf(value: Record<string, Record<string, string>>, properties: Record<string, JsonSchema>): Bound[] {
  const bounds: Bound[] = []
  for (const [key, relations] of Object.entries(value)) {
    for (const [relation, other] of Object.entries(relations) as [Relation, string][]) {
      for (const name of [key, other]) {
        if (!(name in properties)) throw new Error(`${BOUNDS_KEYWORD}: "${name}" is not one of the object's properties`)
      }
      bounds.push({ key, relation, other })
    }
  }
  return bounds
}

/** The option's value, or its schema default when it is left out; `undefined` when it is not a number. */
function numberAt(data: Record<string, unknown>, key: string, properties: Record<string, JsonSchema>): { value: number; byDefault: boolean } | undefined {
  const given = Object.hasOwn(data, key) && data[key] !== undefined
  const value = given ? data[key] : properties[key]?.['default']
  return typeof value === 'number' && Number.isFinite(value) ? { value, byDefault: !given } : undefined
}

/**
 * The ajv definition of {@link BOUNDS_KEYWORD}. A broken bound is reported on the option the user
 * gave — the bounded one, or the other (with the reverse relation) when the bounded one is left at
 * its default — as `must be at most maxDelayMs (500)`. Names that are not properties, or defaults
 * that break their own rule, make the schema invalid (a plugin's `INVALID_PLUGIN` at definition).
 */
export const boundsKeyword: FuncKeywordDefinition = {
  keyword: BOUNDS_KEYWORD,
  type: 'object',
  schemaType: 'object',
  metaSchema: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      minProperties: 1,
      additionalProperties: false,
      properties: Object.fromEntries(Object.keys(RELATIONS).map((relation) => [relation, { type: 'string' }])),
    },
  },
  compile(value: Record<string, Record<string, string>>, parentSchema: JsonSchema) {
    const properties = (parentSchema['properties'] ?? {}) as Record<string, JsonSchema>
    const bounds = boundsOf(value, properties)
    for (const { key, relation, other } of bounds) {
      const [own, limit] = [properties[key]?.['default'], properties[other]?.['default']]
      if (typeof own === 'number' && typeof limit === 'number' && !RELATIONS[relation].holds(own, limit)) {
        throw new Error(`${BOUNDS_KEYWORD}: the default of "${key}" (${own}) breaks its own bound ${relation} "${other}" (${limit})`)
      }
    }
    const validate = (data: unknown, context?: { instancePath?: string }): boolean => {
      const object = data as Record<string, unknown>
      const errors: Partial<ErrorObject>[] = []
      for (const { key, relation, other } of bounds) {
        const [own, limit] = [numberAt(object, key, properties), numberAt(object, other, properties)]
        if (own === undefined || limit === undefined || (own.byDefault && limit.byDefault)) continue
        if (RELATIONS[relation].holds(own.value, limit.value)) continue
        // Reported on an option the user gave: the bounded one, else the other, bounded the other way.
        const [at, params]: [string, BoundParams] = own.byDefault
          ? [other, { relation: RELATIONS[relation].reverse, other: key, limit: own.value, byDefault: true }]
          : [key, { relation, other, limit: limit.value, byDefault: limit.byDefault }]
        const instancePath = `${context?.instancePath ?? ''}/${pointerPart(at)}`
        errors.push({ keyword: BOUNDS_KEYWORD, instancePath, params: params as unknown as Record<string, unknown>, message: boundMessage(params, String(params.limit)) })
      }
      validate.errors = errors.length > 0 ? errors : undefined
      return errors.length === 0
    }
    validate.errors = undefined as Partial<ErrorObject>[] | undefined
    return validate
  },
  errors: true,
}

/**
 * Whether a broken bound goes unreported because one of the two options it compares breaks a rule
 * of its own (`minDelayMs: -1` is below its minimum): that line says what to fix, and the bound
 * compared a value that is wrong anyway.
 */
export function boundShadowed(error: ErrorObject, errors: readonly ErrorObject[]): boolean {
  if (error.keyword !== BOUNDS_KEYWORD) return false
  const parent = error.instancePath.slice(0, error.instancePath.lastIndexOf('/'))
  const other = `${parent}/${pointerPart((error.params as BoundParams).other)}`
  return errors.some((e) => e.keyword !== BOUNDS_KEYWORD && (e.instancePath === error.instancePath || e.instancePath === other))
}

/** A property name as a JSON pointer's segment. */
function pointerPart(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** `must be at most maxDelayMs (500)`, `must be below thresholdRatio (0.8 by default)`; `limit` as the formatter may show it. */
export function boundMessage(params: BoundParams, limit: string): string {
  return `must be ${RELATIONS[params.relation].words} ${params.other} (${limit}${params.byDefault ? ' by default' : ''})`
}
