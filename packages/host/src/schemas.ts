import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { HostError } from './errors.js'
import { blankMessage, hasVisibleContent, withoutBlankText } from './visible-content.js'
import { BASE64_PATTERN, IMAGE_MEDIA_TYPES, imageDataProblem, type ImageMediaType } from './image-check.js'

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
  // `required` in each `if`: a block without a `type` is told that, not that it lacks a `text`
  // (an `if` of properties alone holds of an object that has none of them).
  allOf: [
    { if: { required: ['type'], properties: { type: { const: 'text' } } }, then: { required: ['text'], properties: { text: { type: 'string' } } } },
    {
      if: { required: ['type'], properties: { type: { const: 'image' } } },
      then: { required: ['mediaType', 'data'], properties: { mediaType: { enum: IMAGE_MEDIA_TYPES }, data: { type: 'string', pattern: BASE64_PATTERN } } },
    },
  ],
}

/** What the routes check of `content` beyond its schema (visible-content.ts), told in the OpenAPI document. */
const BLANK_CONTENT = 'Something to read: a string with a character other than whitespace, or blocks with such a text or an image (else 400 invalid-request at /content). A text block of whitespace only beside other blocks is left out (joined to the text block before it, if any).'

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
        description: BLANK_CONTENT,
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
        description: BLANK_CONTENT,
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

// Two validators per schema, compiled once when the module loads. The first stops at the first
// error: every body is checked by it, at a cost that does not grow with what is wrong. The second
// (allErrors) tells every problem of a bad body at once, so a client fixing one field at a time
// does not make a round trip per field — but Ajv then lists ~6 errors per bad array item (5 µs
// each: 3 s for a megabyte of `{}` blocks), so it runs only on bodies of at most
// ALL_PROBLEMS_MAX_BYTES of JSON.
const firstError = new Ajv({ allErrors: false, strict: true })
const allErrors = new Ajv({ allErrors: true, strict: true })

/** How many problems a `400 invalid-request` lists (`details.problems`): a body of 10,000 unknown fields is not answered 10,000 lines. */
export const MAX_BODY_PROBLEMS = 10
/** The largest bad body (its JSON text, in UTF-16 units) told all its problems; a larger one is told its first only. */
export const ALL_PROBLEMS_MAX_BYTES = 8 * 1024
const compileAll = (ajv: Ajv) => Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, ajv.compile(schema)])) as Record<SchemaName, ValidateFunction>
const validators = compileAll(firstError)
const allProblemValidators = compileAll(allErrors)

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
  if (error.keyword === 'pattern' && (error.params as { pattern: string }).pattern === BASE64_PATTERN) {
    return { path: base, message: 'must be the image\'s bytes in base64 (A-Z, a-z, 0-9, "+", "/", at most two "=" at the end), without line breaks or a "data:" prefix' }
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues
    return { path: base, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` }
  }
  return { path: base, message: error.message ?? 'is invalid' }
}

interface Problem { path: string; message: string; error: ErrorObject }

/** Whether `error` is one of the errors Ajv lists for a branch of `anyOf` (at that value). */
const inBranch = (anyOf: ErrorObject, error: ErrorObject): boolean =>
  error.schemaPath.startsWith(`${anyOf.schemaPath}/`) && (error.instancePath === anyOf.instancePath || error.instancePath.startsWith(`${anyOf.instancePath}/`))

/**
 * The problem to tell of an `anyOf`. Ajv lists its errors branch by branch, the first branch's
 * first: for `content` that says "must be string" to a body that sent an array of blocks. The
 * branch of the value's own type is the one it meant, so its error is told (`/content/0/type`);
 * a value of no branch's type is told the types it may have.
 */
function anyOfProblem(anyOf: ErrorObject, ofBranches: readonly ErrorObject[], body: unknown): Problem {
  const wrongType = (error: ErrorObject) => error.keyword === 'type' && error.instancePath === anyOf.instancePath
  const meant = ofBranches.find((error) => !wrongType(error))
  if (meant !== undefined) return { ...describe(meant, body), error: meant }
  const types = ofBranches.map((error) => (error.params as { type: string }).type)
  const path = anyOf.instancePath === '' ? '/' : anyOf.instancePath
  return { path, message: `must be ${types.map((type) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`).join(' or ')} (found ${kindOf(at(body, anyOf.instancePath))})`, error: anyOf }
}

/**
 * Every problem of a body, in Ajv's order, each once: an `anyOf`'s errors told as one problem
 * (see {@link anyOfProblem}) — an error of several nested `anyOf`s is told as the first of them in
 * Ajv's order —, the wrappers (`anyOf` itself, `if`) left out. The first is what a validation that
 * stopped at the first error told. Linear in the errors (times the body's nesting): each error
 * looks up the `anyOf`s at its own path and its ancestors', not every `anyOf` of the body.
 */
function problemsOf(errors: readonly ErrorObject[], body: unknown): Problem[] {
  // The anyOf errors by their instancePath, with their place in Ajv's order.
  const anyOfsAt = new Map<string, { anyOf: ErrorObject; index: number }[]>()
  errors.forEach((error, index) => {
    if (error.keyword !== 'anyOf') return
    const list = anyOfsAt.get(error.instancePath)
    if (list === undefined) anyOfsAt.set(error.instancePath, [{ anyOf: error, index }])
    else list.push({ anyOf: error, index })
  })
  // Each anyOf's branch errors, and each error's first anyOf (itself, or one it is a branch error of).
  const branchErrors = new Map<ErrorObject, ErrorObject[]>()
  const firstAnyOf = errors.map((error) => {
    let first: { anyOf: ErrorObject; index: number } | undefined
    const tokens = error.instancePath.split('/')
    for (let depth = 1; depth <= tokens.length; depth++) {
      const path = depth === 1 ? '' : tokens.slice(0, depth).join('/')
      for (const candidate of anyOfsAt.get(path) ?? []) {
        const isSelf = candidate.anyOf === error
        if (!isSelf && !inBranch(candidate.anyOf, error)) continue
        if (!isSelf) {
          const list = branchErrors.get(candidate.anyOf)
          if (list === undefined) branchErrors.set(candidate.anyOf, [error])
          else list.push(error)
        }
        if (first === undefined || candidate.index < first.index) first = candidate
      }
    }
    return first?.anyOf
  })
  const problems: Problem[] = []
  const told = new Set<string>()
  const toldAnyOf = new Set<ErrorObject>()
  const tell = (problem: Problem): void => {
    const key = `${problem.path}\n${problem.message}`
    if (told.has(key)) return
    told.add(key)
    problems.push(problem)
  }
  errors.forEach((error, index) => {
    const anyOf = firstAnyOf[index]
    if (anyOf !== undefined) {
      // One problem per anyOf: the same one each time it is reached.
      if (toldAnyOf.has(anyOf)) return
      toldAnyOf.add(anyOf)
      tell(anyOfProblem(anyOf, branchErrors.get(anyOf) ?? [], body))
    } else if (error.keyword !== 'if') tell({ ...describe(error, body), error })
  })
  return problems
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
    const first = problemsOf(validate.errors!, body)[0]!
    const problems = [first, ...allProblems(name, body).filter((problem) => problem.path !== first.path || problem.message !== first.message)]
    const unknown = first.error.keyword === 'required' && first.error.instancePath === '' ? unknownFields(schemas[name], body) : ''
    // The others, in the message too (a person reads it): those the first's note does not name already.
    const named = (problem: Problem) => unknown !== '' && problem.error.keyword === 'additionalProperties' && problem.error.instancePath === ''
    const others = problems.slice(1, MAX_BODY_PROBLEMS).filter((problem) => !named(problem))
    const more = problems.length > MAX_BODY_PROBLEMS ? ` (and ${problems.length - MAX_BODY_PROBLEMS} more)` : ''
    const also = others.length === 0 ? '' : ` Also ${others.map((p) => `at ${p.path}: ${p.message}`).join('; ')}${more}.`
    throw new HostError('invalid-request', `Invalid request body at ${first.path}: ${first.message}${unknown}.${also}`, {
      path: first.path,
      problems: problems.slice(0, MAX_BODY_PROBLEMS).map(({ path, message }) => ({ path, message })),
      ...(problems.length > MAX_BODY_PROBLEMS ? { moreProblems: problems.length - MAX_BODY_PROBLEMS } : {}),
    })
  }
  if (name === 'postMessage' || name === 'editMessage') {
    const { content } = body as { content: string | { type: string; text?: string }[] }
    // What a schema cannot say: some text is more than whitespace, and an image's bytes are whole and of the type it claims.
    if (!hasVisibleContent(content)) throw blankMessage('/content')
    checkImages(content)
    // Checked as sent (an image's path is its index there), kept without blank text blocks.
    const kept = withoutBlankText(content)
    if (kept !== content) return { ...(body as object), content: kept } as T
  }
  return body as T
}

/** The first image block of a valid `content` whose data a provider would refuse, as `invalid-request` at its `data`. */
function checkImages(content: unknown): void {
  if (!Array.isArray(content)) return
  content.forEach((block: { type: string; mediaType?: ImageMediaType; data?: string }, i) => {
    if (block.type !== 'image') return
    const problem = imageDataProblem(block.mediaType!, block.data!)
    if (problem !== undefined) {
      const path = `/content/${i}/data`
      throw new HostError('invalid-request', `Invalid request body at ${path}: the image ${problem}.`, { path, problems: [{ path, message: `the image ${problem}` }] })
    }
  })
}

/** Every problem of a bad body no larger than {@link ALL_PROBLEMS_MAX_BYTES} of JSON; none of a larger one. */
function allProblems(name: SchemaName, body: unknown): Problem[] {
  // A parsed body is JSON: stringify cannot throw, and costs what parsing it did.
  if (JSON.stringify(body).length > ALL_PROBLEMS_MAX_BYTES) return []
  const validate = allProblemValidators[name]
  return validate(body) ? [] : problemsOf(validate.errors!, body)
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
