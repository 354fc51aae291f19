import { requestParallelToolCalls, requestParamError, requestToolChoice } from '@bosun/core'
import type { ModelRequest } from '@bosun/core'

/** Anthropic's `tool_choice`; `disable_parallel_tool_use` lives in it (not in `none`). */
export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: true }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: true }
  | { type: 'none' }

/**
 * `request.params.toolChoice` and `parallelToolCalls` (set by a `prepareCall` hook) as Anthropic's
 * `tool_choice`, so that a session moved from the openai adapter keeps their meaning. The kit
 * checks them (`requestToolChoice`: what no provider could honour fails the request); then `auto` →
 * `auto`, `none` → `none`, `required` → `any`, a named tool → `{ type: 'tool', name }`.
 * `parallelToolCalls: false` adds `disable_parallel_tool_use: true` (to `auto` when no toolChoice
 * is given); with `none`, or no tools, it has nothing to disable and is left out; `true` is
 * Anthropic's default and sends nothing. A forced call while thinking is on fails the request
 * (Anthropic refuses it).
 */
export function toToolChoice(request: Pick<ModelRequest, 'params' | 'tools'>, thinking: string | undefined): AnthropicToolChoice | undefined {
  const choice = requestToolChoice(request.params.toolChoice, request.tools)
  const parallel = requestParallelToolCalls(request.params.parallelToolCalls, request.tools, choice)
  if (choice?.type === 'none') return choice
  if ((choice?.type === 'required' || choice?.type === 'tool') && thinking !== undefined) {
    throw requestParamError('toolChoice', `forces a tool call, which Anthropic refuses while extended thinking is on (reasoningEffort ${JSON.stringify(thinking)}): use "auto", or an adapter without reasoningEffort`)
  }
  const disable = parallel === false ? { disable_parallel_tool_use: true as const } : {}
  if (choice === undefined) return parallel === false ? { type: 'auto', ...disable } : undefined
  if (choice.type === 'tool') return { type: 'tool', name: choice.name, ...disable }
  return { type: choice.type === 'required' ? 'any' : 'auto', ...disable }
}
