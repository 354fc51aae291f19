import type { LanguageModelV3ToolChoice } from '@ai-sdk/provider'
import { ModelError } from '@bosun/core'
import type { JsonValue, ToolSpec } from '@bosun/core'

const EXPECTED = '"auto", "none", "required" or { "type": "function", "function": { "name": "<a tool of the request>" } }'

/**
 * `request.params.toolChoice` (set by a `prepareCall` hook) as the AI SDK's `toolChoice` (the same
 * in V2, V3 and V4), so that a session moved from the openai adapter keeps its meaning. The values
 * are the ones the openai adapter sends as `tool_choice`: `auto`, `none` and `required` as they
 * are, `{ type: 'function', function: { name } }` → `{ type: 'tool', toolName }`. Undefined when
 * not given, and for `auto` / `none` when the request has no tools. What has no equivalent fails
 * the request (`INVALID_REQUEST`) rather than being ignored: another value, and a forced call with
 * no tools or naming a tool the request does not have.
 */
export function toToolChoice(value: JsonValue | undefined, tools: readonly ToolSpec[]): LanguageModelV3ToolChoice | undefined {
  if (value === undefined) return undefined
  if (value === 'auto' || value === 'none') return tools.length === 0 ? undefined : { type: value }
  const choice: LanguageModelV3ToolChoice = value === 'required' ? { type: 'required' } : { type: 'tool', toolName: named(value) }
  if (tools.length === 0) refuse('forces a tool call, but the request has no tools')
  if (choice.type === 'tool' && !tools.some((tool) => tool.name === choice.toolName)) {
    refuse(`names the tool ${JSON.stringify(choice.toolName)}, which is not among the request's tools (${tools.map((tool) => tool.name).join(', ')})`)
  }
  return choice
}

function named(value: JsonValue): string {
  const fn = typeof value === 'object' && value !== null && !Array.isArray(value) && value.type === 'function' ? value.function : undefined
  const name = typeof fn === 'object' && fn !== null && !Array.isArray(fn) ? fn.name : undefined
  if (typeof name !== 'string' || name === '') refuse(`must be ${EXPECTED} (found ${JSON.stringify(value)})`)
  return name
}

function refuse(problem: string): never {
  throw new ModelError('INVALID_REQUEST', `The request parameter "toolChoice" ${problem}; check the prepareCall hooks.`, { retryable: false })
}
