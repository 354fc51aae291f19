import { createRequire } from 'node:module'
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv'
import { KEEP_CREDENTIALS_OUT, looksLikeCredential } from './config/credentials.js'
import { envNameProblems } from './config/env-names.js'
import { FUNCTION_EXPECTED, FUNCTION_KEYWORD, functionKeyword, nonJsonMessage, nonJsonValues } from './config/non-json.js'
import { childPath, describeValue, suggest } from './config/problems.js'
import { requiredValues } from './config/required-values.js'
import { mayQuoteValueAt } from './config/secrets.js'
import { BosunError, ErrorCodes } from './errors.js'
import { GENERATED_VALIDATORS } from './generated-validators.js'
import { BOUNDS_KEYWORD, boundMessage, boundShadowed, boundsKeyword, type BoundParams } from './schema-bounds.js'

/** A JSON Schema object (draft-07 / 2019-09 keywords that ajv supports). */
export type JsonSchema = { [key: string]: unknown }

let shared: Ajv | undefined

/** The options of the core's ajv instance — and of the generated validators (scripts/generate-validators.mjs). */
export const AJV_OPTIONS: Options = { allErrors: true, strict: false, useDefaults: false, strictNumbers: true }

/** The keywords the core's ajv instance knows. */
export const ajvKeywords = [boundsKeyword, functionKeyword]

const require = createRequire(import.meta.url)

/**
 * One ajv instance for the process: schemas are compiled once and cached by owner. Numbers are
 * strict: `Infinity` and `NaN` (a YAML `.inf`, a code caller's division) fail `type: number` and
 * `type: integer`, which ajv otherwise lets pass. It knows `x-bosun-bounds`, a rule between two
 * options that counts a field left out at its default (see {@link BOUNDS_KEYWORD}), and
 * `x-bosun-function`, an option only code can give: a function ({@link FUNCTION_KEYWORD}).
 */
export function ajv(): Ajv {
  if (shared === undefined) {
    // Required on first use (ajv is CommonJS, so this stays synchronous): a default `bosun run`
    // checks only schemas with a generated validator and never pays ajv's import (~55 ms of CPU)
    // nor its meta-schema's compile (~35–50 ms; docs/benchmarks.md, "The CLI's start").
    const { Ajv: AjvClass } = require('ajv') as typeof import('ajv')
    shared = new AjvClass(AJV_OPTIONS)
    for (const keyword of ajvKeywords) shared.addKeyword(keyword)
  }
  return shared
}

const generated = new WeakMap<JsonSchema, ValidateFunction | null>()

/**
 * The validator generated at build time for a schema with the same JSON (the config's, the
 * scripted adapter's and the JSONL store's options: scripts/generate-validators.mjs), else
 * `undefined`: the schema is compiled with {@link ajv}. Same ajv options and keywords, so the
 * same checks and the same errors.
 */
export function generatedValidator(schema: JsonSchema): ValidateFunction | undefined {
  let fn = generated.get(schema)
  if (fn === undefined) {
    fn = (GENERATED_VALIDATORS.get(JSON.stringify(schema)) as ValidateFunction | undefined) ?? null
    generated.set(schema, fn)
  }
  return fn ?? undefined
}

const compiled = new WeakMap<object, (value: unknown, what: string) => void>()
const compiledSchemas = new WeakMap<JsonSchema, ValidateFunction>()

/** `schema` compiled once (per schema object); a schema ajv refuses is the module's bug: INVALID_PLUGIN. */
function compiledSchema(schema: JsonSchema): ValidateFunction {
  let fn = compiledSchemas.get(schema) ?? generatedValidator(schema)
  if (fn) return fn
  try {
    fn = ajv().compile(schema)
  } catch (error) {
    throw new BosunError(ErrorCodes.INVALID_PLUGIN, `The options schema is not a valid JSON Schema: ${(error as Error).message}`, {
      cause: error,
    })
  }
  compiledSchemas.set(schema, fn)
  return fn
}

/**
 * What `schema` finds wrong with `value`, in the words of every options error (empty: valid) —
 * every `…Env` option that does not name a variable, whatever the schema says of it (a plugin's
 * `{ type: 'string' }` lets a pasted key through to its "variable … is not set"; not looked for in
 * what the schema marks as the user's data, `x-bosun-data`), and every value JSON cannot hold (a
 * bigint, a symbol, NaN: {@link nonJsonValues}), which ajv lets through wherever the schema
 * names no type. A value the schema refuses already is not reported twice.
 */
function problemsOf(schema: JsonSchema, value: unknown): OptionsProblem[] {
  const fn = compiledSchema(schema)
  const problems: OptionsProblem[] = fn(value) ? [] : schemaProblems(fn.errors ?? [], schema, value)
  const refused = new Set(problems.map((problem) => problemPath('$', problem.keys)))
  for (const problem of [...envNameProblems(value, schema), ...nonJsonProblems(value)]) {
    const path = problemPath('$', problem.keys)
    if (refused.has(path)) continue
    refused.add(path)
    problems.push(problem)
  }
  return problems
}

/**
 * Every value in `value` JSON cannot hold ({@link nonJsonValues}) as a problem: what was found
 * (never a credential) and what to give instead. Shared by the options check from code and the
 * config's check of an entry's options, so that a YAML `.nan` reads the same from both.
 */
export function nonJsonProblems(value: unknown): OptionsProblem[] {
  return nonJsonValues(value).map(({ keys, value: found }) => ({ keys, message: nonJsonMessage(found, describeFound(found, keys)) }))
}

/**
 * The options of a plugin or store that declares no schema: any value passes the schema — but the
 * checks every options check makes whatever the schema says (an `…Env` option holding a key) run
 * all the same, so that declaring no schema is no way round them.
 */
export const UNDECLARED_OPTIONS: JsonSchema = {}

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
  compiledSchema(schema) // a broken schema fails now, not at the first value
  validator = (value, what) => {
    const problems = problemsOf(schema, value)
    if (problems.length > 0) throw optionsError(what, problems, code)
  }
  compiled.set(owner, validator)
  return validator
}

/** Options of {@link assertOptions}. */
export interface AssertOptionsOptions<T> {
  /** The error's code. Default `INVALID_ARGUMENT` (a code caller's mistake). */
  code?: string
  /** Where the value sits in the options, for the paths: `['responses', 2]` gives `$.responses[2].chunkSize`. */
  at?: readonly (string | number)[]
  /**
   * What the schema cannot say (a URL that parses, a value JSON cannot hold, a function), run on
   * a value the schema has passed; its problems are reported like the schema's ({@link OptionsProblem}).
   */
  check?: (value: T) => readonly OptionsProblem[]
}

/**
 * Checks options given from code against the JSON Schema a config file's are checked with — one
 * source of truth, so a mistake reads the same from code and from a config — then runs `check`
 * for what the schema cannot say. Throws one error (`INVALID_ARGUMENT` unless `code` says)
 * listing every problem: `Invalid options for scripted():\n  - $.responses[2].chunkSize: must be >= 1 (found 0)`.
 * The schema is compiled once. Options that `createAdapter` or `createStore` has just checked
 * against the same schema are not checked by it again (see {@link withCheckedOptions}); `check`
 * still runs.
 *
 * @example
 * export function myStore(options: MyStoreOptions): Store {
 *   const checked = assertOptions<MyStoreOptions>(myStoreOptionsSchema, options, 'myStore()')
 *   …
 * }
 */
export function assertOptions<T>(schema: JsonSchema, value: unknown, what: string, options: AssertOptionsOptions<T> = {}): T {
  const { code = ErrorCodes.INVALID_ARGUMENT, at = [], check } = options
  const vouched = checked !== undefined && checked.schema === schema && checked.value === value && at.length === 0
  checked = undefined
  const problems: OptionsProblem[] = vouched ? [] : problemsOf(schema, value)
  if (problems.length === 0 && check !== undefined) problems.push(...check(value as T))
  if (problems.length > 0) throw optionsError(what, at.length === 0 ? problems : problems.map((problem) => ({ ...problem, keys: [...at, ...problem.keys] })), code)
  return value as T
}

/** The options just checked against `schema` (by `createAdapter` or `createStore`), while its `create` runs synchronously. */
let checked: { schema: JsonSchema; value: unknown } | undefined

/**
 * Runs `create` (an adapter's or a store's) after the caller has checked `value` against
 * `schema`: the first {@link assertOptions} of that very value against that schema, made
 * synchronously by `create`, trusts the check instead of repeating it. Anything else — another
 * value, another schema, a check after an `await` — is checked as usual, so no options go
 * unchecked.
 */
export function withCheckedOptions<R>(schema: JsonSchema, value: unknown, create: () => R): R {
  checked = { schema, value }
  try {
    return create()
  } finally {
    checked = undefined
  }
}

/**
 * A problem with an option that a check outside the schema found (a URL that does not parse, a
 * regular expression that does not compile…). With `found`, the line ends `(found …)` as the
 * schema's do — described, never quoted when it may be a credential ({@link describeFound}).
 */
export interface OptionsProblem {
  keys: readonly (string | number)[]
  message: string
  found?: unknown
}

/**
 * The error of bad options, in the words of every options error: `Invalid options for <what>:`
 * and one `  - $.path: message` line per problem; `details` is `{ what, paths }` (the paths
 * comma-separated). For the checks a JSON Schema cannot express, so that they read like the
 * schema's own: say what was expected and, unless it may be a credential, what was found.
 */
export function optionsError(what: string, problems: readonly OptionsProblem[], code: string = ErrorCodes.PLUGIN_OPTIONS_INVALID): BosunError {
  const lines = problems.map((problem) => `  - ${problemLine(problem)}`)
  const error = new BosunError(code, `Invalid options for ${what}:\n${lines.join('\n')}`, {
    details: { what, paths: problems.map((problem) => problemPath('$', problem.keys)).join(',') },
  })
  problemsByError.set(error, problems)
  return error
}

/** The problems each {@link optionsError} was made of (kept off the error: its details are serialised into events). */
const problemsByError = new WeakMap<BosunError, readonly OptionsProblem[]>()

/**
 * The problems an options error of {@link optionsError} was made of, each as its path from the
 * options' root (`$.rules[0].pattern`) and its message; undefined for any other error.
 */
export function optionsErrorProblems(error: unknown): { path: string; message: string }[] | undefined {
  const problems = error instanceof BosunError ? problemsByError.get(error) : undefined
  return problems?.map((problem) => {
    const path = problemPath('$', problem.keys)
    return { path, message: problemLine(problem).slice(path.length + 2) }
  })
}

/**
 * One problem a schema finds in a value, in the words every options error uses — from code
 * (`createAdapter`, a plugin's or store's options, a tool's arguments) and from a config file,
 * which only puts the file and the entry's key path in front.
 */
export interface SchemaProblem {
  /** JSON pointer of the value in error, relative to the validated value (`''` for the value itself). */
  pointer: string
  /** The keys from the validated value to the value in error (to the property itself for `required` and `additionalProperties`). */
  keys: (string | number)[]
  /** What is wrong: `must be an integer (found "hot")`, `is required`, `unknown key "tagg" — did you mean "tag"?` */
  message: string
}

/**
 * The problems of a failed validation: `anyOf` (and `oneOf`) alternatives collapse into one
 * "must be …" when it has an `x-expected` phrase, unknown keys get a "did you mean" from the schema's own
 * properties, and each message says what was found — never a value (or key) that looks like a
 * credential.
 */
export function schemaProblems(errors: readonly ErrorObject[], schema: JsonSchema, root: unknown): SchemaProblem[] {
  // An `anyOf` with an `x-expected` phrase is reported once, with that phrase, not per branch.
  // A bad key under `propertyNames` is reported once, by the rule it breaks (ajv adds a second, vaguer error).
  // A rule between two options (x-bosun-bounds) is left out while either breaks a rule of its own.
  const shown = errors.filter((e) => e.keyword !== 'propertyNames' && !boundShadowed(e, errors))
    .filter((e) => !e.schemaPath.includes('/anyOf/') || expectedAt(schema, e.schemaPath.slice(0, e.schemaPath.lastIndexOf('/anyOf/'))) === undefined)
    .filter((e) => !e.schemaPath.includes('/oneOf/') || expectedAt(schema, e.schemaPath.slice(0, e.schemaPath.lastIndexOf('/oneOf/'))) === undefined)
  const problems = shown.map((error) => ({ pointer: error.instancePath, keys: errorKeys(error), message: problemMessage(error, schema, root) }))
  // Two rules of one phrase (`type` and `oneOf` both saying the root's x-expected) make one line.
  const line = (problem: SchemaProblem) => `${problemPath('$', problem.keys)}: ${problem.message}`
  return problems.filter((problem, index) => problems.findIndex((other) => line(other) === line(problem)) === index)
}

/** `base` with `keys` appended: `$.a[0]`, `$.plugins[1][1].tag`, `$["odd key"]`, `$[<credential>]`. */
export function problemPath(base: string, keys: readonly (string | number)[]): string {
  return keys.reduce<string>((path, key) => childPath(path, key), base)
}

/** A problem as code callers get it: `$.max: must be >= 1 (found 0)`. */
export function problemLine(problem: OptionsProblem): string {
  const found = 'found' in problem ? ` (found ${describeFound(problem.found, problem.keys)})` : ''
  return `${problemPath('$', problem.keys)}: ${problem.message}${found}`
}

/** The keys of a JSON pointer: `/a/0/b` → `['a', 0, 'b']`. */
function pointerKeys(pointer: string): (string | number)[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((key) => (/^\d+$/.test(key) ? Number(key) : key))
}

function errorKeys(error: ErrorObject): (string | number)[] {
  const keys = pointerKeys(error.instancePath)
  if (error.keyword === 'required') keys.push((error.params as { missingProperty: string }).missingProperty)
  if (error.keyword === 'additionalProperties') keys.push((error.params as { additionalProperty: string }).additionalProperty)
  if (error.propertyName !== undefined) keys.push(error.propertyName)
  return keys
}

/**
 * How an options error describes a found value: {@link describeValue} (which never quotes one that
 * looks like a credential), and only the type of any value — a number, a boolean, an array's
 * items too — under a key that may hold one (a secret-looking key, a `…Env` key, `headers`) or
 * anywhere inside such a key's value, or where the schema says `writeOnly` (`secret`: a
 * connection URL, which may hold a password in a form no credential pattern knows).
 */
function describeFound(value: unknown, keys: readonly (string | number)[], secret = false): string {
  const hidden = secret || keys.some((_, index) => !mayQuoteValueAt(keys.slice(0, index + 1)))
  if (hidden && value !== null && value !== undefined) return `${typeOfValue(value)} not shown: under this key it could be a credential`
  return describeValue(value)
}

function typeOfValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  return article(typeof value)
}

function problemMessage(error: ErrorObject, schema: JsonSchema, root: unknown): string {
  if (error.propertyName !== undefined) {
    // A key that `propertyNames` refuses: the path names it (unless it looks like a credential).
    const expected = expectedAt(schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/propertyNames/') + '/propertyNames'.length))
    return `the key ${expected !== undefined ? `must be ${expected}` : error.message ?? 'is invalid'}`
  }
  // The value's own schema (the failed keyword's parent) may say it is never shown: `writeOnly`.
  const secret = schemaAt(schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')))?.['writeOnly'] === true
  const found = describeFound(valueAt(root, error.instancePath), pointerKeys(error.instancePath), secret)
  switch (error.keyword) {
    case 'required': {
      // With the values the property may take when its schema lists them: what to write, from a config and from code alike.
      const values = requiredValues(schema, error)
      return values === undefined ? 'is required' : `is required: ${values}`
    }
    case BOUNDS_KEYWORD: {
      // `must be at most maxDelayMs (500) (found 600)`: the other option's value shown by the same rules as a found one.
      const params = error.params as BoundParams
      const otherKeys = [...pointerKeys(error.instancePath).slice(0, -1), params.other]
      return `${boundMessage(params, describeFound(params.limit, otherKeys))} (found ${found})`
    }
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
    case FUNCTION_KEYWORD:
      // Only code can give it; the option's own words (`x-expected`) say what the function does.
      return `must be ${expectedAt(schema, error.schemaPath.replace(new RegExp(`/${FUNCTION_KEYWORD}$`), '')) ?? FUNCTION_EXPECTED} (found ${found})`
    case 'anyOf':
    case 'oneOf':
    case 'not': {
      // An `anyOf` or `oneOf` (or a `not`: a key that must be left out when another is given) says what it wants with `x-expected`.
      const expected = expectedAt(schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')))
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
    case 'minimum':
    case 'maximum': {
      // Both bounds given: the range in words, `must be an integer from 100 to 599 (found 42)`.
      const bounded = schemaAt(schema, error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')))
      const range = bounded === undefined ? undefined : rangePhrase(bounded)
      if (range !== undefined) return `must be ${range} (found ${found})`
      return `${error.message ?? 'is invalid'} (found ${found})`
    }
    default:
      // ajv's own messages name the rule (`must be >= 1`, `must match pattern "…"`), never the value.
      return `${error.message ?? 'is invalid'} (found ${found})`
  }
}

/** `an integer from 1 to 100`, `a number from 0 to 2`, for a schema with both `minimum` and `maximum`. */
function rangePhrase(schema: JsonSchema): string | undefined {
  const { minimum, maximum, type } = schema
  if (typeof minimum !== 'number' || typeof maximum !== 'number') return undefined
  return `${type === 'integer' ? 'an integer' : 'a number'} from ${minimum} to ${maximum}`
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
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
