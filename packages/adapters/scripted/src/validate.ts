import { assertOptions } from '@bosun/core'
import type { OptionsProblem } from '@bosun/core'
import { scriptedOptionsSchema, scriptedResponseSchema } from './options.js'
import type { ScriptedEntry, ScriptedOptions, ScriptedResponse } from './options.js'

// The options of `scripted()` from code are checked against `scriptedOptionsSchema`, the schema a
// config file's are checked with, through the core's formatter: one set of rules, one wording.
// Code only adds what the schema cannot see: a function as an entry of `responses` (checked when
// it is called), and values JSON cannot represent (Infinity, a Map, a cycle) where the schema
// says nothing of them — inside a tool call's `args`.

const WHAT = 'scripted()'

/** Checks the options of `scripted()`. */
export function validateOptions(input: unknown): ScriptedOptions {
  if (input === undefined) return {}
  const responses = (input as { responses?: unknown } | null)?.responses
  // A function entry is checked when it is called; the schema sees an empty response in its place.
  const functions = Array.isArray(responses) && responses.some((entry) => typeof entry === 'function')
  const shown = functions ? { ...(input as object), responses: responses.map((entry) => (typeof entry === 'function' ? {} : entry)) } : input
  assertOptions(scriptedOptionsSchema, shown, WHAT, { check: (options: ScriptedOptions) => jsonProblems(options, []) })
  return input as ScriptedOptions
}

/** Checks what a response function returned; `index` is its entry's in `responses`. */
export function validateResponse(input: unknown, index: number): ScriptedResponse {
  const what = `${WHAT} (the response the function at $.responses[${index}] returned)`
  return assertOptions<ScriptedResponse>(scriptedResponseSchema, input, what, { at: ['responses', index], check: (response) => jsonProblems(response, []) })
}

/** Checks one entry given to `push()`: a response object, or a function (checked when called). */
export function validateEntry(entry: unknown, index: number): ScriptedEntry {
  if (typeof entry === 'function') return entry as ScriptedEntry
  const at = ['responses', index]
  return assertOptions<ScriptedResponse>(scriptedResponseSchema, entry, `${WHAT}.push()`, { at, check: (response) => jsonProblems(response, []) })
}

const NOT_JSON = 'must be JSON: a plain object, an array, a string, a finite number, a boolean or null'

/**
 * The first value under `value` that JSON cannot hold, as a problem; the schema has passed `value`, so only what a schema cannot see is left.
 */
function jsonProblems(value: unknown, keys: (string | number)[], seen = new Set<object>()): OptionsProblem[] {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return []
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ keys, message: NOT_JSON, found: value }]
  if (typeof value !== 'object') return [{ keys, message: NOT_JSON, found: value }]
  if (seen.has(value)) return [{ keys, message: `${NOT_JSON} (this value contains itself)` }]
  const proto = Object.getPrototypeOf(value)
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return [{ keys, message: `${NOT_JSON} (found a ${proto?.constructor?.name ?? 'non-plain'} object)` }]
  }
  seen.add(value)
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue // dropped by JSON.stringify, as everywhere in Bosun
    const problems = jsonProblems(item, [...keys, Array.isArray(value) ? Number(key) : key], seen)
    if (problems.length > 0) return problems
  }
  seen.delete(value)
  return []
}
