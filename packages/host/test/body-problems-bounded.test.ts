import { Ajv, type ErrorObject } from 'ajv'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ALL_PROBLEMS_MAX_BYTES, MAX_BODY_PROBLEMS, schemas, validateBody } from '../src/schemas.js'
import { hasVisibleContent } from '../src/visible-content.js'
import { bodyRefusal as refusal, json, makeHost, perTest, req } from './helpers.js'

const t = perTest()


/**
 * 175cb32 told every problem of a bad body by running Ajv with `allErrors` on every body and
 * grouping its errors with a scan of all of them per error: quadratic in the errors, and Ajv lists
 * ~6 per bad content block — 1.6 s of a blocked event loop for 500 `{}` blocks (1.5 KB), minutes
 * for 12 KB, before the session was even looked up. A large bad body is now told its first
 * problem only, and the grouping is linear. (A regression to the quadratic grouping makes the
 * last case hang rather than fail: the validation is synchronous.)
 */
describe('host: the problems of a bad body, bounded', () => {
  it(`a bad body over ${ALL_PROBLEMS_MAX_BYTES} bytes of JSON is told its first problem only`, () => {
    const body = { clientMessageId: 'my id', content: 'x'.repeat(ALL_PROBLEMS_MAX_BYTES), delivery: 'later' }
    const { message, details } = refusal('postMessage', body)
    expect(details.path).toBe('/clientMessageId')
    expect(details.problems).toHaveLength(1)
    expect(details.moreProblems).toBeUndefined()
    expect(message).not.toContain('Also')
    // The same body one field smaller than the bound is told both.
    const small = { ...body, content: 'x'.repeat(ALL_PROBLEMS_MAX_BYTES - 100) }
    expect(refusal('postMessage', small).details.problems.map((p: { path: string }) => p.path)).toEqual(['/clientMessageId', '/delivery'])
  })

  it('a megabyte of empty content blocks is answered 400 at its first block', async () => {
    const { host, store } = makeHost(t.dir)
    t.closing.push(store, host)
    const content = Array.from({ length: 300_000 }, () => ({}))
    const answer = await req(host, 'POST', '/v1/sessions/nosuch/messages', { clientMessageId: 'a', content })
    expect(answer.status).toBe(400)
    const { error } = await json(answer)
    expect(error.details.path).toBe('/content/0/type')
    expect(error.details.problems).toEqual([{ path: '/content/0/type', message: '"type" is required' }])
  })

  it('the linear grouping tells what the scan of every error told (a property, against 175cb32\'s code)', () => {
    const text = fc.oneof(fc.constant('hi'), fc.constant(''), fc.integer())
    const block = fc.record(
      { type: fc.oneof(fc.constant('text'), fc.constant('image'), fc.constant('audio'), fc.integer()), text, mediaType: text, data: text, extra: fc.integer() },
      { requiredKeys: [] },
    )
    const content = fc.oneof(fc.constant('hello'), fc.constant(''), fc.integer(), fc.constant(null), fc.array(fc.oneof(block, fc.integer(), fc.constant([])), { maxLength: 8 }))
    const body = fc.record(
      {
        clientMessageId: fc.oneof(fc.constant('m1'), fc.constant('my id'), fc.integer()),
        content,
        delivery: fc.oneof(fc.constant('inject'), fc.constant('later'), fc.boolean()),
        stray: fc.integer(),
      },
      { requiredKeys: [] },
    )
    const name = fc.constantFrom<'postMessage' | 'editMessage'>('postMessage', 'editMessage')
    fc.assert(
      fc.property(name, body, (schema, value) => {
        const expected = referenceProblems(schema, value)
        if (expected === undefined) {
          // What the schema cannot say is checked after it: a message with nothing visible (445da55).
          const { content } = value as { content: Parameters<typeof hasVisibleContent>[0] }
          if (hasVisibleContent(content)) expect(() => validateBody(schema, value)).not.toThrow()
          else expect(refusal(schema, value).details.problems).toEqual([{ path: '/content', message: expect.stringContaining('no text but whitespace') }])
          return
        }
        const { details } = refusal(schema, value)
        expect(details.problems).toEqual(expected.slice(0, MAX_BODY_PROBLEMS))
        expect(details.moreProblems).toBe(expected.length > MAX_BODY_PROBLEMS ? expected.length - MAX_BODY_PROBLEMS : undefined)
      }),
      { numRuns: 500 },
    )
  })
})

// 175cb32's grouping, kept as the reference: every anyOf scanned per error, every error per anyOf.
const reference = new Ajv({ allErrors: true, strict: true })
const referenceValidators = { postMessage: reference.compile(schemas.postMessage), editMessage: reference.compile(schemas.editMessage) }
const inBranch = (anyOf: ErrorObject, error: ErrorObject): boolean =>
  error.schemaPath.startsWith(`${anyOf.schemaPath}/`) && (error.instancePath === anyOf.instancePath || error.instancePath.startsWith(`${anyOf.instancePath}/`))

function referenceProblems(name: 'postMessage' | 'editMessage', body: unknown): { path: string; message: string }[] | undefined {
  const validate = referenceValidators[name]
  if (validate(body)) return undefined
  const errors = validate.errors!
  const anyOfs = errors.filter((error) => error.keyword === 'anyOf')
  const problems: { path: string; message: string }[] = []
  const told = new Set<string>()
  const tell = (problem: { path: string; message: string }): void => {
    const key = `${problem.path}\n${problem.message}`
    if (told.has(key)) return
    told.add(key)
    problems.push(problem)
  }
  for (const error of errors) {
    const anyOf = anyOfs.find((a) => a === error || inBranch(a, error))
    if (anyOf !== undefined) tell(referenceAnyOf(anyOf, errors, body))
    else if (error.keyword !== 'if') tell(referenceDescribe(error, body))
  }
  return problems
}

function referenceAnyOf(anyOf: ErrorObject, errors: readonly ErrorObject[], body: unknown): { path: string; message: string } {
  const ofBranches = errors.filter((error) => inBranch(anyOf, error))
  const wrongType = (error: ErrorObject) => error.keyword === 'type' && error.instancePath === anyOf.instancePath
  const meant = ofBranches.find((error) => !wrongType(error))
  if (meant !== undefined) return referenceDescribe(meant, body)
  const types = ofBranches.map((error) => (error.params as { type: string }).type)
  const path = anyOf.instancePath === '' ? '/' : anyOf.instancePath
  return { path, message: `must be ${types.map((type) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`).join(' or ')} (found ${kindOf(at(body, anyOf.instancePath))})` }
}

function referenceDescribe(error: ErrorObject, body: unknown): { path: string; message: string } {
  const base = error.instancePath === '' ? '/' : error.instancePath
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty
    return { path: `${error.instancePath}/${extra}`, message: `unknown property "${extra}"` }
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return { path: `${error.instancePath}/${missing}`, message: `"${missing}" is required` }
  }
  if (error.keyword === 'pattern') {
    const found = String(at(body, error.instancePath))
    return { path: base, message: `must be 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit (found ${JSON.stringify(found.length > 40 ? `${found.slice(0, 40)}…` : found)})` }
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues
    return { path: base, message: `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}` }
  }
  return { path: base, message: error.message ?? 'is invalid' }
}

function at(body: unknown, pointer: string): unknown {
  let value = body
  for (const token of pointer.split('/').slice(1)) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[token] : undefined
  return value
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  const type = typeof value
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`
}
