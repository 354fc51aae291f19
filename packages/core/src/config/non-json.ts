import type { FuncKeywordDefinition } from 'ajv'
import { childrenOf, isPlainObject } from './plain-strings.js'

/**
 * Options are JSON values — a config file can hold nothing else, and options given in code are
 * checked against the same schema — except where an option's schema says only code can give it:
 * `'x-bosun-function': true`, a function (a jitter source, a predicate). JSON Schema has no
 * function type, and ajv's `type` keyword fails a function, a bigint and a symbol alike, so a
 * schema could only say "none of the JSON types" (`not: { type: [...] }`), which let a bigint or a
 * symbol through as well as the function. This keyword says "a function", and nothing else passes it.
 */
export const FUNCTION_KEYWORD = 'x-bosun-function'

/** The ajv definition of {@link FUNCTION_KEYWORD}: `true` requires a function. */
export const functionKeyword: FuncKeywordDefinition = {
  keyword: FUNCTION_KEYWORD,
  schemaType: 'boolean',
  validate: (wanted: boolean, data: unknown) => !wanted || typeof data === 'function',
  errors: false,
}

/** The words of an option that requires a function and has no `x-expected` phrase of its own. */
export const FUNCTION_EXPECTED = 'a function, given in code (a config file cannot hold one)'

/** A value in options that JSON cannot hold: where it is, and the value. */
export interface NonJsonValue {
  keys: (string | number)[]
  value: unknown
}

/** What an option must be where the schema says nothing else (the scripted adapter's words for a tool call's args too). */
export const NOT_JSON = 'must be JSON: a plain object, an array, a string, a finite number, a boolean or null'

/** What to give instead, by kind of value. */
const INSTEAD = {
  bigint: 'convert it with Number(…), or String(…) beyond Number.MAX_SAFE_INTEGER',
  symbol: 'give a string in place of the symbol',
  number: 'JSON has no NaN or Infinity: give a finite number, or leave the option out for its default',
} as const

/**
 * The line of a value {@link nonJsonValues} found, after its path: what was expected, what was
 * found (`found`, as the options check describes a value: never one that may be a credential) and
 * what to give instead — `must be JSON: … (found the bigint 5n): convert it with Number(…), …`.
 */
export function nonJsonMessage(value: unknown, found: string): string {
  return `${NOT_JSON} (found ${found}): ${INSTEAD[typeof value as keyof typeof INSTEAD]}`
}

/**
 * Every value in `options` (through plain objects and arrays, at any depth) that JSON cannot
 * hold and that no schema can accept: a bigint, a symbol, `NaN` or `±Infinity`. Wherever the
 * schema says nothing of the value (free-form data, an option of a plugin without a schema, a
 * property given no type), ajv lets them through; written to a log or sent to a provider they
 * fail later, far from the options, or turn into `null`. An object a constructor made (a model, a
 * client) and a function are code's own and not looked into; `undefined` means "left out".
 * Iterative, each object visited once: deep nesting and cycles (from code) end.
 */
export function nonJsonValues(options: unknown): NonJsonValue[] {
  const problems: NonJsonValue[] = []
  const seen = new Set<object>()
  const stack: { value: unknown; keys: (string | number)[] }[] = [{ value: options, keys: [] }]
  while (stack.length > 0) {
    const { value, keys } = stack.pop()!
    const kind = typeof value
    if (kind === 'bigint' || kind === 'symbol' || (kind === 'number' && !Number.isFinite(value))) {
      problems.push({ keys, value })
      continue
    }
    if (kind !== 'object' || value === null || seen.has(value as object)) continue
    if (!Array.isArray(value) && !isPlainObject(value as object)) continue
    seen.add(value as object)
    const children = childrenOf(value as object)
    // Pushed last to first: reported in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push({ value: children[i]![1], keys: [...keys, children[i]![0]] })
  }
  return problems
}
