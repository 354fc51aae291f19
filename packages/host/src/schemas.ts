import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { HostError } from './errors.js'

/** A message id chosen by the client; it becomes the message id in the log. */
export const CLIENT_MESSAGE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'

/**
 * A content block as the core's `createUserMessage` takes it (`ContentBlock`): a text block with
 * its `text`, or an image with its `mediaType` and base64 `data`. Checked here so that a wrong one
 * is the client's `400` at its path, not the core's throw answered `500`. Other fields of a block
 * pass, as the core lets them.
 */
const contentBlock = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'image'] } },
  allOf: [
    { if: { properties: { type: { const: 'text' } } }, then: { required: ['text'], properties: { text: { type: 'string' } } } },
    {
      if: { properties: { type: { const: 'image' } } },
      then: { required: ['mediaType', 'data'], properties: { mediaType: { type: 'string' }, data: { type: 'string' } } },
    },
  ],
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

function describe(error: ErrorObject, body: unknown): { path: string; message: string } {
  const base = error.instancePath === '' ? '/' : error.instancePath
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty
    return { path: `${error.instancePath}/${extra}`, message: `unknown property "${extra}"` }
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return { path: `${error.instancePath}/${missing}`, message: `"${missing}" is required` }
  }
  if (error.keyword === 'pattern' && (error.params as { pattern: string }).pattern === CLIENT_MESSAGE_ID_PATTERN) {
    // In words: a client that sent a space or a slash should not have to read the expression.
    const found = String(at(body, error.instancePath))
    return { path: base, message: `must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (found ${JSON.stringify(found.length > 40 ? `${found.slice(0, 40)}…` : found)})` }
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues
    return { path: base, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` }
  }
  return { path: base, message: error.message ?? 'is invalid' }
}

/**
 * The error to tell the client. Ajv lists an `anyOf`'s errors branch by branch, the first branch's
 * first: for `content` that says "must be string" to a body that sent an array of blocks. The
 * branch of the value's own type is the one it meant, so its error is told (`/content/0/type`);
 * a value of no branch's type is told the types it may have.
 */
function firstProblem(errors: ErrorObject[], body: unknown): { path: string; message: string; error: ErrorObject } {
  const first = errors[0]!
  const anyOf = errors.find((error) => error.keyword === 'anyOf')
  if (anyOf === undefined || !first.schemaPath.startsWith(`${anyOf.schemaPath}/`)) return { ...describe(first, body), error: first }
  const ofBranches = errors.filter((error) => error.schemaPath.startsWith(`${anyOf.schemaPath}/`))
  const wrongType = (error: ErrorObject) => error.keyword === 'type' && error.instancePath === anyOf.instancePath
  const meant = ofBranches.find((error) => !wrongType(error))
  if (meant !== undefined) return { ...describe(meant, body), error: meant }
  const types = ofBranches.map((error) => (error.params as { type: string }).type)
  const path = anyOf.instancePath === '' ? '/' : anyOf.instancePath
  return { path, message: `must be ${types.map((type) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`).join(' or ')} (found ${kindOf(at(body, anyOf.instancePath))})`, error: anyOf }
}

/** The value at a JSON pointer Ajv reported (`/content`, `/messages/0/parts`). */
function at(body: unknown, pointer: string): unknown {
  let value = body
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~')
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
  }
  return value
}

/** `a number`, `null`, `an object`: what a JSON value is, for a message. */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
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
    const first = firstProblem(validate.errors!, body)
    const error = first.error
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
