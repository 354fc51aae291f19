import { createHash } from 'node:crypto'
import { ModelError } from '@bosun/core'
import type { AssistantBlock, ContentBlock, JsonValue, ModelMessage, ModelRequest, ToolSpec } from '@bosun/core'
import { thinkingBudgets, type ReasoningEffort, type ResolvedOptions } from './options.js'
import { toToolChoice, type AnthropicToolChoice } from './tool-choice.js'

export interface TextPart { type: 'text'; text: string }
export interface ImagePart { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
export interface ThinkingPart { type: 'thinking'; thinking: string; signature: string }
export interface RedactedThinkingPart { type: 'redacted_thinking'; data: string }
export interface ToolUsePart { type: 'tool_use'; id: string; name: string; input: { [key: string]: JsonValue } }
export interface ToolResultPart { type: 'tool_result'; tool_use_id: string; content?: (TextPart | ImagePart)[]; is_error?: true }

export type AnthropicPart = TextPart | ImagePart | ThinkingPart | RedactedThinkingPart | ToolUsePart | ToolResultPart

export interface AnthropicMessage {
  role: 'user' | 'assistant'
  content: AnthropicPart[]
}

/** The body of `POST /v1/messages`, as far as this adapter fills it. */
export interface AnthropicRequestBody {
  model: string
  max_tokens: number
  system?: string
  messages: AnthropicMessage[]
  tools?: { name: string; description: string; input_schema: ToolSpec['parameters'] }[]
  tool_choice?: AnthropicToolChoice
  temperature?: number
  thinking?: { type: 'enabled'; budget_tokens: number }
  stream: true
}

/**
 * Maps a Bosun request to an Anthropic Messages request. Roles alternate: consecutive user and
 * tool messages merge into one user message (tool results first), consecutive assistant messages
 * into one assistant message (thinking, then text, then tool use). Throws `INVALID_REQUEST` for
 * request params of the wrong type.
 */
export function toAnthropicRequest(request: ModelRequest, options: ResolvedOptions): AnthropicRequestBody {
  const params = readParams(request.params, options)
  const messages = toMessages(request.messages)
  const thinking = params.reasoningEffort !== undefined && toolLoopAllowsThinking(messages)
  const budget = thinking ? thinkingBudgets[params.reasoningEffort!] : undefined
  // max_tokens counts thinking too: a budget that would leave no room for the answer is added on top.
  const maxTokens = budget !== undefined && params.maxTokens <= budget ? budget + params.maxTokens : params.maxTokens
  const toolChoice = toToolChoice(request, thinking ? params.reasoningEffort : undefined)
  return {
    model: request.model ?? options.model,
    max_tokens: maxTokens,
    ...(request.system === '' ? {} : { system: request.system }),
    messages,
    ...(request.tools.length === 0 ? {} : {
      tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
    }),
    ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }),
    // Anthropic refuses a temperature other than the default while thinking.
    ...(params.temperature === undefined || budget !== undefined ? {} : { temperature: params.temperature }),
    ...(budget === undefined ? {} : { thinking: { type: 'enabled' as const, budget_tokens: budget } }),
    stream: true,
  }
}

/**
 * The id Anthropic gets for a tool call id: kept when it already matches `^[a-zA-Z0-9_-]{1,64}$`
 * (Anthropic's own `toolu_…` ids), else a hash of it, so that a tool_use and its tool_result
 * always map to the same id.
 */
export function toolUseId(id: string): string {
  if (/^[a-zA-Z0-9_-]{1,64}$/.test(id)) return id
  return `toolu_bosun_${createHash('sha256').update(id).digest('hex').slice(0, 40)}`
}

/**
 * A tool call's arguments as Anthropic's `input` object. Arguments that are not a JSON object
 * (a stream cut short, a model that produced broken JSON) are sent as `{}`: the original call's
 * tool result already told the model what went wrong.
 */
export function toolInput(text: string): { [key: string]: JsonValue } {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as { [key: string]: JsonValue }
  } catch {
    // not JSON: fall through
  }
  return {}
}

function toMessages(history: readonly ModelMessage[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = []
  for (const message of history) {
    const role = message.role === 'assistant' ? 'assistant' : 'user'
    const parts =
      message.role === 'assistant' ? assistantParts(message.content)
        : message.role === 'tool' ? [toolResult(message)]
          : contentParts(message.content)
    if (parts.length === 0) continue
    const last = out[out.length - 1]
    if (last?.role === role) last.content.push(...parts)
    else out.push({ role, content: parts })
  }
  for (const message of out) message.content = stableSort(message.content, message.role === 'user' ? userRank : assistantRank)
  return out
}

/**
 * Reasoning goes back only when Anthropic produced it (provider `anthropic` with a signature):
 * another provider's reasoning, or a signature cut off mid-stream, would fail the request. A
 * reasoning block with empty text is a `redacted_thinking` block, its data kept as the signature.
 */
function assistantParts(blocks: readonly AssistantBlock[]): AnthropicPart[] {
  const parts: AnthropicPart[] = []
  for (const block of blocks) {
    if (block.type === 'reasoning') {
      if (block.provider !== 'anthropic' || !block.signature) continue
      parts.push(block.text === '' ? { type: 'redacted_thinking', data: block.signature } : { type: 'thinking', thinking: block.text, signature: block.signature })
    } else if (block.type === 'text') {
      if (!isBlank(block.text)) parts.push({ type: 'text', text: block.text })
    } else {
      parts.push({ type: 'tool_use', id: toolUseId(block.id), name: block.name, input: toolInput(block.arguments) })
    }
  }
  return parts
}

function toolResult(message: Extract<ModelMessage, { role: 'tool' }>): ToolResultPart {
  const part: ToolResultPart = { type: 'tool_result', tool_use_id: toolUseId(message.callId) }
  const content = contentParts(message.content)
  if (content.length > 0) part.content = content
  if (message.isError) part.is_error = true
  return part
}

/**
 * Anthropic refuses a text block that is empty or whitespace only ("text content blocks must
 * contain non-whitespace text"), in every message of the history — so one such block stored in a
 * session (a model's "\n\n" before a tool call, a blank caption beside an image) would fail every
 * later turn. Such blocks carry nothing, and are left out.
 */
const isBlank = (text: string): boolean => text.trim() === ''

/** Text and images; blank text blocks are left out (Anthropic refuses them). */
function contentParts(blocks: readonly ContentBlock[]): (TextPart | ImagePart)[] {
  const parts: (TextPart | ImagePart)[] = []
  for (const block of blocks) {
    if (block.type === 'text') {
      if (!isBlank(block.text)) parts.push({ type: 'text', text: block.text })
    } else {
      parts.push({ type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } })
    }
  }
  return parts
}

const userRank = (part: AnthropicPart): number => (part.type === 'tool_result' ? 0 : 1)
const assistantRank = (part: AnthropicPart): number =>
  part.type === 'thinking' || part.type === 'redacted_thinking' ? 0 : part.type === 'tool_use' ? 2 : 1

function stableSort(parts: AnthropicPart[], rank: (part: AnthropicPart) => number): AnthropicPart[] {
  return parts.map((part, i) => [rank(part), i, part] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, , part]) => part)
}

/**
 * With thinking on, Anthropic requires the assistant message of a tool loop still in progress
 * (the last one, answered by tool results) to begin with a thinking block. When that message
 * came from another provider (or had its reasoning cut off), this request goes without thinking.
 */
function toolLoopAllowsThinking(messages: readonly AnthropicMessage[]): boolean {
  const last = messages[messages.length - 1]
  const previous = messages[messages.length - 2]
  if (last?.role !== 'user' || previous?.role !== 'assistant' || last.content[0]?.type !== 'tool_result') return true
  const first = previous.content[0]?.type
  return first === 'thinking' || first === 'redacted_thinking'
}

interface Params {
  maxTokens: number
  temperature: number | undefined
  reasoningEffort: ReasoningEffort | undefined
}

/** `request.params` (from `prepareCall`) override the options per request. */
function readParams(params: ModelRequest['params'], options: ResolvedOptions): Params {
  const { maxTokens = options.maxTokens, temperature = options.temperature, reasoningEffort = options.reasoningEffort } = params
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1) badParam('maxTokens', 'a positive integer', maxTokens)
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) {
    badParam('temperature', 'a number from 0 to 1', temperature)
  }
  if (reasoningEffort !== undefined && (typeof reasoningEffort !== 'string' || !Object.hasOwn(thinkingBudgets, reasoningEffort))) {
    badParam('reasoningEffort', '"low", "medium" or "high"', reasoningEffort)
  }
  return { maxTokens, temperature, reasoningEffort: reasoningEffort as ReasoningEffort | undefined }
}

function badParam(name: string, expected: string, found: unknown): never {
  throw new ModelError('INVALID_REQUEST', `The request parameter "${name}" must be ${expected} (found ${JSON.stringify(found)}); check the prepareCall hooks.`, {
    retryable: false,
  })
}
