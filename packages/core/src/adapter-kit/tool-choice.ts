import type { JsonValue } from '../json.js'
import { ModelError, type ToolSpec } from '../model.js'

/**
 * `request.params.toolChoice`, checked, in neutral terms for an adapter to write in its
 * provider's words. `required`: some tool must be called; `tool`: that one.
 */
export type RequestToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string }

const EXPECTED = '"auto", "none", "required" or { "type": "function", "function": { "name": "<a tool of the request>" } }'

/**
 * The one reading of `request.params.toolChoice` (set by a `prepareCall` hook) for every adapter,
 * so that it means the same on every provider. The values are the ones the openai adapter sends as
 * `tool_choice`: `"auto"`, `"none"`, `"required"`, `{ type: 'function', function: { name } }`.
 * Undefined when not given (or `null`, which removes a param), and for `auto` / `none` when the
 * request has no tools (nothing to choose; OpenAI refuses `tool_choice` without `tools`). What no
 * provider could honour fails the request (`INVALID_REQUEST`, not retryable) before anything is
 * sent, rather than being ignored or left to each server: another value, a forced call when the
 * request has no tools, a forced call naming a tool the request does not have.
 */
export function requestToolChoice(value: JsonValue | undefined, tools: readonly ToolSpec[]): RequestToolChoice | undefined {
  if (value === undefined || value === null) return undefined
  if (value === 'auto' || value === 'none') return tools.length === 0 ? undefined : { type: value }
  const choice: RequestToolChoice = value === 'required' ? { type: 'required' } : { type: 'tool', name: named(value) }
  if (tools.length === 0) refuse('toolChoice', 'forces a tool call, but the request has no tools')
  if (choice.type === 'tool' && !tools.some((tool) => tool.name === choice.name)) {
    refuse('toolChoice', `names the tool ${JSON.stringify(choice.name)}, which is not among the request's tools (${tools.map((tool) => tool.name).join(', ')})`)
  }
  return choice
}

/**
 * `request.params.parallelToolCalls` (may the model call several tools in one answer?), checked:
 * `true` or `false`; undefined when not given (or `null`), and when it has nothing to say — the
 * request has no tools, or `toolChoice` is `none`. Another value fails the request
 * (`INVALID_REQUEST`). `choice` is {@link requestToolChoice}'s answer for the same request.
 */
export function requestParallelToolCalls(value: JsonValue | undefined, tools: readonly ToolSpec[], choice: RequestToolChoice | undefined): boolean | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') refuse('parallelToolCalls', `must be true or false (found ${JSON.stringify(value)})`)
  return tools.length === 0 || choice?.type === 'none' ? undefined : value
}

/** The error of a request parameter that cannot be sent as it is. */
export function requestParamError(name: string, problem: string): ModelError {
  return new ModelError('INVALID_REQUEST', `The request parameter "${name}" ${problem}; check the prepareCall hooks.`, { retryable: false })
}

function named(value: JsonValue): string {
  const fn = typeof value === 'object' && value !== null && !Array.isArray(value) && value.type === 'function' ? value.function : undefined
  const name = typeof fn === 'object' && fn !== null && !Array.isArray(fn) ? fn.name : undefined
  if (typeof name !== 'string' || name === '') refuse('toolChoice', `must be ${EXPECTED} (found ${JSON.stringify(value)})`)
  return name
}

function refuse(name: string, problem: string): never {
  throw requestParamError(name, problem)
}
