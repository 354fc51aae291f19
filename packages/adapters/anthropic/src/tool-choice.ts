import { ModelError } from '@bosun/core'
import type { JsonValue, ToolSpec } from '@bosun/core'

/** Anthropic's `tool_choice`. */
export type AnthropicToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'any' } | { type: 'tool'; name: string }

const EXPECTED = '"auto", "none", "required" or { "type": "function", "function": { "name": "<a tool of the request>" } }'

/**
 * `request.params.toolChoice` (set by a `prepareCall` hook) as Anthropic's `tool_choice`, so that a
 * session moved from the openai adapter keeps its meaning. The values are the ones the openai
 * adapter sends as `tool_choice`: `auto` → `auto`, `none` → `none`, `required` → `any`,
 * `{ type: 'function', function: { name } }` → `{ type: 'tool', name }`. Undefined when not given,
 * and for `auto` / `none` when the request has no tools (nothing to choose). What has no
 * equivalent fails the request (`INVALID_REQUEST`) rather than being ignored: another value, a
 * forced call with no tools or naming a tool the request does not have, and a forced call while
 * thinking is on (Anthropic refuses it).
 */
export function toToolChoice(value: JsonValue | undefined, tools: readonly ToolSpec[], thinking: string | undefined): AnthropicToolChoice | undefined {
  if (value === undefined) return undefined
  if (value === 'auto' || value === 'none') return tools.length === 0 ? undefined : { type: value }
  const choice: AnthropicToolChoice = value === 'required' ? { type: 'any' } : named(value)
  if (tools.length === 0) refuse(`forces a tool call, but the request has no tools`)
  if (choice.type === 'tool' && !tools.some((tool) => tool.name === choice.name)) {
    refuse(`names the tool ${JSON.stringify(choice.name)}, which is not among the request's tools (${tools.map((tool) => tool.name).join(', ')})`)
  }
  if (thinking !== undefined) {
    refuse(`forces a tool call, which Anthropic refuses while extended thinking is on (reasoningEffort ${JSON.stringify(thinking)}): use "auto", or an adapter without reasoningEffort`)
  }
  return choice
}

function named(value: JsonValue): { type: 'tool'; name: string } {
  const fn = typeof value === 'object' && value !== null && !Array.isArray(value) && value.type === 'function' ? value.function : undefined
  const name = typeof fn === 'object' && fn !== null && !Array.isArray(fn) ? fn.name : undefined
  if (typeof name !== 'string' || name === '') {
    throw new ModelError('INVALID_REQUEST', `The request parameter "toolChoice" must be ${EXPECTED} (found ${JSON.stringify(value)}); check the prepareCall hooks.`, { retryable: false })
  }
  return { type: 'tool', name }
}

function refuse(problem: string): never {
  throw new ModelError('INVALID_REQUEST', `The request parameter "toolChoice" ${problem}; check the prepareCall hooks.`, { retryable: false })
}
