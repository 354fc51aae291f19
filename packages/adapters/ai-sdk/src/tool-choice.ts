import type { LanguageModelV3ToolChoice } from '@ai-sdk/provider'
import { requestParallelToolCalls, requestParamError, requestToolChoice } from '@bosun/core'
import type { JsonValue, ModelRequest } from '@bosun/core'
import { providerFamily } from './prompt.js'

/**
 * `request.params.toolChoice` (set by a `prepareCall` hook) as the AI SDK's `toolChoice` (the same
 * in V2, V3 and V4), so that a session moved from the openai adapter keeps its meaning. The kit
 * checks it (`requestToolChoice`: what no provider could honour fails the request); `auto`, `none`
 * and `required` are as they are, a named tool is `{ type: 'tool', toolName }`.
 */
export function toToolChoice(request: Pick<ModelRequest, 'params' | 'tools'>): LanguageModelV3ToolChoice | undefined {
  const choice = requestToolChoice(request.params.toolChoice, request.tools)
  return choice?.type === 'tool' ? { type: 'tool', toolName: choice.name } : choice
}

/**
 * `request.params.parallelToolCalls` has no field in the AI SDK's call options (V2, V3, V4): each
 * provider has its own `providerOptions` key, or none. Known: `@ai-sdk/openai` (chat and responses
 * models) reads `openai.parallelToolCalls`, `@ai-sdk/anthropic` `anthropic.disableParallelToolUse`;
 * for those the value is written there, over what the options or `params.providerOptions` said.
 * Another provider cannot be asked: `false` there fails the request (`INVALID_REQUEST`) rather
 * than being ignored — the model could make several calls the caller forbade. `true` (every
 * provider's default) sends nothing. Nothing either when it has nothing to say (no tools,
 * `toolChoice` `none`). Returns the `providerOptions` entry to merge, or undefined.
 */
export function parallelToolCallsOption(request: Pick<ModelRequest, 'params' | 'tools'>, provider: string): { [family: string]: { [key: string]: JsonValue } } | undefined {
  const parallel = requestParallelToolCalls(request.params.parallelToolCalls, request.tools, requestToolChoice(request.params.toolChoice, request.tools))
  if (parallel === undefined) return undefined
  const family = providerFamily(provider)
  if (family === 'openai') return { openai: { parallelToolCalls: parallel } }
  if (family === 'anthropic') return { anthropic: { disableParallelToolUse: !parallel } }
  if (parallel) return undefined
  throw requestParamError(
    'parallelToolCalls',
    `is false, but the AI SDK gives no portable way to ask it and ${provider} is not a provider whose own option the bridge knows (@ai-sdk/openai, @ai-sdk/anthropic): leave it out, or set that provider's option in params.providerOptions if it has one`,
  )
}
