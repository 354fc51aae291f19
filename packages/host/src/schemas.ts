import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { HostError } from './errors.js'

/** A message id chosen by the client; it becomes the message id in the log. */
export const CLIENT_MESSAGE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'

const contentBlock = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', minLength: 1 } },
}

export const schemas = {
  createSession: {
    type: 'object',
    additionalProperties: false,
    properties: { id: { type: 'string', minLength: 1, maxLength: 128 } },
  },
  postMessage: {
    type: 'object',
    additionalProperties: false,
    required: ['clientMessageId', 'content'],
    properties: {
      clientMessageId: { type: 'string', pattern: CLIENT_MESSAGE_ID_PATTERN },
      content: {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', minItems: 1, items: contentBlock },
        ],
      },
      delivery: { enum: ['followup', 'steer', 'inject'] },
    },
  },
  cancel: {
    type: 'object',
    additionalProperties: false,
    properties: { keepInbox: { type: 'boolean' } },
  },
  editMessage: {
    type: 'object',
    additionalProperties: false,
    required: ['content'],
    properties: {
      content: {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'array', minItems: 1, items: contentBlock },
        ],
      },
    },
  },
  order: {
    type: 'object',
    additionalProperties: false,
    required: ['order'],
    properties: { order: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } } },
  },
  fork: {
    type: 'object',
    additionalProperties: false,
    properties: { id: { type: 'string', minLength: 1, maxLength: 128 }, afterTurn: { type: 'integer', minimum: 0 } },
  },
  login: {
    type: 'object',
    additionalProperties: false,
    required: ['token'],
    properties: { token: { type: 'string', minLength: 1, maxLength: 4096 } },
  },
  aiSdkChat: {
    type: 'object',
    required: ['id', 'messages'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 128 },
      messages: {
        type: 'array',
        minItems: 1,
        items: { type: 'object', required: ['id', 'role', 'parts'], properties: { id: { type: 'string' }, role: { type: 'string' }, parts: { type: 'array' } } },
      },
      bosun: { type: 'object', additionalProperties: false, properties: { delivery: { enum: ['followup', 'steer', 'inject'] } } },
      trigger: { type: 'string' },
    },
  },
  ticket: {
    type: 'object',
    additionalProperties: false,
    required: ['path'],
    properties: { path: { type: 'string', minLength: 1, maxLength: 512 } },
  },
  empty: { type: 'object', additionalProperties: false, properties: {} },
} as const

export type SchemaName = keyof typeof schemas

/**
 * The type a body of one of these schemas has once it validated: derived from the schema (the
 * subset of JSON Schema they use), so the schema is the one source of truth.
 */
export type FromSchema<S> =
  S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly anyOf: readonly (infer A)[] } ? FromSchema<A>
  : S extends { readonly type: 'string' } ? string
  : S extends { readonly type: 'integer' | 'number' } ? number
  : S extends { readonly type: 'boolean' } ? boolean
  : S extends { readonly type: 'array'; readonly items: infer I } ? FromSchema<I>[]
  : S extends { readonly type: 'object'; readonly properties: infer P } ? ObjectOf<P, S extends { readonly required: readonly (infer R)[] } ? R : never, S extends { readonly additionalProperties: false } ? false : true>
  : unknown

type ObjectOf<P, R, Open extends boolean> =
  & { -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]> }
  & { -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]> }
  & (Open extends true ? { [key: string]: unknown } : unknown)

/** The validated body of a schema by name. */
export type BodyOf<N extends SchemaName> = FromSchema<(typeof schemas)[N]>

export type PostMessageBody = BodyOf<'postMessage'>

const ajv = new Ajv({ allErrors: false, strict: true })
// Compiled once, when the module loads.
const validators = Object.fromEntries(
  Object.entries(schemas).map(([name, schema]) => [name, ajv.compile(schema)]),
) as Record<SchemaName, ValidateFunction>

function describe(error: ErrorObject): { path: string; message: string } {
  const base = error.instancePath === '' ? '/' : error.instancePath
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty
    return { path: `${error.instancePath}/${extra}`, message: `unknown property "${extra}"` }
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return { path: `${error.instancePath}/${missing}`, message: `"${missing}" is required` }
  }
  return { path: base, message: error.message ?? 'is invalid' }
}

/**
 * Validates a parsed JSON body; a bad one is `invalid-request` naming the JSON path. Ajv reports a
 * missing field before an unknown one, so a body that names a field wrongly (`{"text": "hi"}` for
 * `content`) would only be told that `content` is required: the unknown fields of the body are
 * named too, with the fields it may have.
 */
export function validateBody<T>(name: SchemaName, body: unknown): T {
  const validate = validators[name]
  if (!validate(body)) {
    const error = validate.errors![0]!
    const first = describe(error)
    const unknown = error.keyword === 'required' && error.instancePath === '' ? unknownFields(schemas[name], body) : ''
    throw new HostError('invalid-request', `Invalid request body at ${first.path}: ${first.message}${unknown}.`, { path: first.path })
  }
  return body as T
}

/** ` (the body's "text" is not one of its fields: clientMessageId, content, delivery)`, or '' when it has no unknown field. */
function unknownFields(schema: (typeof schemas)[SchemaName], body: unknown): string {
  if (!('additionalProperties' in schema) || schema.additionalProperties !== false) return ''
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ''
  const fields = Object.keys(schema.properties)
  const extra = Object.keys(body).filter((key) => !fields.includes(key))
  if (extra.length === 0) return ''
  const named = extra.slice(0, 3).map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)).join(', ')
  return ` (the body's ${named}${extra.length > 3 ? ` and ${extra.length - 3} more` : ''} ${extra.length === 1 ? 'is not one of its fields' : 'are not among its fields'}: ${fields.join(', ')})`
}
