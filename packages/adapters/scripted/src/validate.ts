import { invalidArgument, ModelErrorCodes } from '@bosun/core'
import { finishReasons } from './options.js'
import type { ScriptedEntry, ScriptedOptions, ScriptedResponse } from './options.js'

// Hand-written twin of `scriptedOptionsSchema`, so that `scripted()` called from code reports
// mistakes as precisely as the config loader does, e.g.
// `scripted(): responses[2].chunkSize must be a positive integer (found 0)`.

const optionKeys = ['responses', 'record']
const responseKeys = ['text', 'reasoning', 'toolCalls', 'finish', 'usage', 'chunkSize', 'delayMs', 'error']
const toolCallKeys = ['name', 'args', 'id']
const usageKeys = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cachedInputTokens']
const errorKeys = ['status', 'code', 'message', 'retryAfterMs', 'retryable']

function fail(path: string, problem: string): never {
  throw invalidArgument(`scripted(): ${path} ${problem}`, { path })
}

/** Short description of a found value, for messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'bigint') return `${value}n`
  return String(value)
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function expectObject(value: unknown, path: string): Record<string, unknown> {
  if (!isObject(value)) fail(path, `must be an object (found ${describe(value)})`)
  return value
}

/** `path.key`, or `key` at the top level (`path` empty). */
const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

function knownKeys(value: Record<string, unknown>, keys: readonly string[], path: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) fail(join(path, key), `is not a known ${what} (known: ${keys.join(', ')})`)
  }
}

function optional(value: Record<string, unknown>, key: string, path: string, ok: (v: unknown) => boolean, expected: string): void {
  const v = value[key]
  if (v !== undefined && !ok(v)) fail(join(path, key), `must be ${expected} (found ${describe(v)})`)
}

const isString = (v: unknown): boolean => typeof v === 'string'
const isNonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0
const isNonNegative = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0
const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0
const oneOf = (values: readonly string[]) => (v: unknown): boolean => values.includes(v as string)
const listOf = (values: readonly string[]): string => `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`

/** Path of the first value under `value` that JSON cannot represent, if any. */
function nonJsonPath(value: unknown, path: string, seen: Set<object>): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path
  if (typeof value !== 'object') return path
  if (seen.has(value)) return path
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const bad = nonJsonPath(value[i], `${path}[${i}]`, seen)
        if (bad !== undefined) return bad
      }
      return undefined
    }
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return path
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue // dropped by JSON.stringify, as everywhere in Bosun
      const bad = nonJsonPath(item, `${path}.${key}`, seen)
      if (bad !== undefined) return bad
    }
    return undefined
  } finally {
    seen.delete(value)
  }
}

/** Checks one response object; `path` names it in messages (`responses[2]`). */
export function validateResponse(input: unknown, path: string): ScriptedResponse {
  const response = expectObject(input, path)
  knownKeys(response, responseKeys, path, 'field')
  optional(response, 'text', path, isString, 'a string')
  optional(response, 'reasoning', path, isString, 'a string')
  optional(response, 'finish', path, oneOf(finishReasons), listOf(finishReasons))
  optional(response, 'chunkSize', path, (v) => Number.isInteger(v) && (v as number) > 0, 'a positive integer')
  optional(response, 'delayMs', path, isNonNegative, 'a non-negative number')
  if (response.toolCalls !== undefined) {
    if (!Array.isArray(response.toolCalls)) fail(`${path}.toolCalls`, `must be an array (found ${describe(response.toolCalls)})`)
    response.toolCalls.forEach((item: unknown, i: number) => {
      const at = `${path}.toolCalls[${i}]`
      const call = expectObject(item, at)
      knownKeys(call, toolCallKeys, at, 'field')
      if (!isNonEmptyString(call.name)) fail(`${at}.name`, `must be a non-empty string (found ${describe(call.name)})`)
      optional(call, 'id', at, isNonEmptyString, 'a non-empty string')
      if (call.args !== undefined) {
        if (!isObject(call.args)) fail(`${at}.args`, `must be an object (found ${describe(call.args)})`)
        const bad = nonJsonPath(call.args, `${at}.args`, new Set())
        if (bad !== undefined) fail(bad, 'is not JSON (use plain objects, arrays, strings, finite numbers, booleans and null)')
      }
    })
  }
  if (response.usage !== undefined) {
    const usage = expectObject(response.usage, `${path}.usage`)
    knownKeys(usage, usageKeys, `${path}.usage`, 'field')
    for (const key of usageKeys) optional(usage, key, `${path}.usage`, isCount, 'a non-negative integer')
  }
  if (response.error !== undefined) {
    const at = `${path}.error`
    const error = expectObject(response.error, at)
    knownKeys(error, errorKeys, at, 'field')
    optional(error, 'status', at, (v) => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599, 'an integer from 100 to 599')
    optional(error, 'code', at, oneOf(ModelErrorCodes), listOf(ModelErrorCodes))
    optional(error, 'message', at, isString, 'a string')
    optional(error, 'retryAfterMs', at, isNonNegative, 'a non-negative number')
    optional(error, 'retryable', at, (v) => typeof v === 'boolean', 'a boolean')
    if (response.finish !== undefined) fail(`${path}.finish`, 'cannot be combined with error (a failing response has no finish)')
  }
  return response as ScriptedResponse
}

/** Checks one entry of `responses`: a response object, or a function (checked when called). */
export function validateEntry(entry: unknown, path: string): ScriptedEntry {
  if (typeof entry === 'function') return entry as ScriptedEntry
  if (!isObject(entry)) fail(path, `must be a response object or a function (found ${describe(entry)})`)
  return validateResponse(entry, path)
}

/** Checks the options of `scripted()`. */
export function validateOptions(input: unknown): ScriptedOptions {
  if (input === undefined) return {}
  if (!isObject(input)) throw invalidArgument(`scripted(): options must be an object (found ${describe(input)})`)
  knownKeys(input, optionKeys, '', 'option')
  optional(input, 'record', '', (v) => typeof v === 'boolean', 'a boolean')
  if (input.responses !== undefined && !Array.isArray(input.responses)) {
    fail('responses', `must be an array (found ${describe(input.responses)})`)
  }
  ;(input.responses as unknown[] | undefined)?.forEach((entry, i) => validateEntry(entry, `responses[${i}]`))
  return input as ScriptedOptions
}
