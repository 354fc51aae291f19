import { createHash } from 'node:crypto'
import { requestParallelToolCalls, requestToolChoice } from '@bosun/core'
import type { AssistantBlock, ContentBlock, ModelMessage, ModelRequest, SentMaxTokens, ToolCallBlock } from '@bosun/core'
import type { MaxTokensField } from './options.js'

/** What the request mapping needs to know about the adapter. */
export interface RequestSettings {
  model: string
  provider: string
  reasoningPassback: boolean
  /** Send `stream_options: { include_usage: true }` (off for a server that refuses the field). */
  streamOptions: boolean
  maxTokensField: MaxTokensField
  maxTokens?: number
  temperature?: number
  reasoningEffort?: string
}

/** One Chat Completions message as sent. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: 'tool'; tool_call_id: string; content: string }

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }

export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** Request fields that the adapter owns: `request.params` cannot replace them. */
const RESERVED = new Set(['model', 'messages', 'tools', 'stream', 'stream_options'])

/** Params checked by the kit, so that they mean what they mean on the other adapters (see {@link toolParams}). */
const CHECKED = new Set(['toolChoice', 'parallelToolCalls'])

/** camelCase params (as plugins and the options name them) → Chat Completions fields. */
const PARAM_FIELDS: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  reasoningEffort: 'reasoning_effort',
  maxCompletionTokens: 'max_completion_tokens',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
  stop: 'stop',
  seed: 'seed',
}

/** Ids the providers accept as they are; anything else is replaced by a hash (see {@link providerToolCallId}). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,40}$/

/**
 * The id a tool call is sent under. OpenAI accepts `[A-Za-z0-9_-]` ids of at most 40 characters;
 * other ids (from another provider, or the core's fallbacks) become `call_` + 32 hex digits of
 * their SHA-256, deterministically, so a call and its result always get the same id.
 */
export function providerToolCallId(id: string): string {
  return SAFE_ID.test(id) ? id : `call_${createHash('sha256').update(id).digest('hex').slice(0, 32)}`
}

/** Maps a {@link ModelRequest} to a streaming Chat Completions request body. */
export function buildBody(request: ModelRequest, settings: RequestSettings): Record<string, unknown> {
  const messages: ChatMessage[] = []
  if (request.system !== '') messages.push({ role: 'system', content: request.system })
  messages.push(...toChatMessages(request.messages, settings))
  const body: Record<string, unknown> = {
    model: request.model ?? settings.model,
    messages,
    stream: true,
    ...(settings.streamOptions ? { stream_options: { include_usage: true } } : {}),
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }))
  }
  const params: Record<string, unknown> = {}
  if (settings.maxTokens !== undefined) params[settings.maxTokensField] = settings.maxTokens
  if (settings.temperature !== undefined) params.temperature = settings.temperature
  if (settings.reasoningEffort !== undefined) params.reasoning_effort = settings.reasoningEffort
  for (const [key, value] of Object.entries(request.params)) {
    if (CHECKED.has(key)) continue
    const field = key === 'maxTokens' ? settings.maxTokensField : (PARAM_FIELDS[key] ?? key)
    if (RESERVED.has(field)) continue
    if (value === null) delete params[field]
    else params[field] = value
  }
  return { ...body, ...params, ...toolParams(request) }
}

/**
 * The maximum output tokens `body` ({@link buildBody}'s) sends — in `field` (the adapter's
 * `maxTokensField`), else in the other field a `prepareCall` hook may have set through
 * `request.params` — or undefined when it sends none. A 413 is typed by it (`maxTokensOverLimit`).
 */
export function sentMaxTokens(body: Record<string, unknown>, field: MaxTokensField): SentMaxTokens | undefined {
  for (const name of [field, field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens'] as const) {
    const value = body[name]
    if (typeof value === 'number' && Number.isFinite(value)) return { maxTokens: value, maxTokensField: name }
  }
  return undefined
}

/**
 * `toolChoice` and `parallelToolCalls` as `tool_choice` and `parallel_tool_calls`, checked by the
 * kit as the anthropic and ai-sdk adapters check them: what no provider could honour (another
 * value, a forced call with no tools or naming a tool the request lacks) fails the request with
 * `INVALID_REQUEST` before anything is sent, instead of reaching the server. Left out when there is
 * nothing to choose (no tools; `parallel_tool_calls` with `tool_choice: "none"`).
 */
function toolParams(request: ModelRequest): Record<string, unknown> {
  const choice = requestToolChoice(request.params.toolChoice, request.tools)
  const parallel = requestParallelToolCalls(request.params.parallelToolCalls, request.tools, choice)
  return {
    ...(choice === undefined ? {} : { tool_choice: choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type }),
    ...(parallel === undefined ? {} : { parallel_tool_calls: parallel }),
  }
}

/**
 * The history as Chat Completions messages. Each assistant message with tool calls is followed
 * directly by one `tool` message per call, in the order of the calls (a call without a result
 * gets an error placeholder, a result without a call is dropped); user messages that arrived
 * between the calls and their results follow the results.
 */
export function toChatMessages(history: readonly ModelMessage[], settings: RequestSettings): ChatMessage[] {
  const out: ChatMessage[] = []
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!
    if (message.role === 'user') {
      out.push(userMessage(message.content))
      continue
    }
    if (message.role === 'tool') continue // a result whose call is not in the history
    const assistant = assistantMessage(message.content, settings)
    if (assistant === undefined) continue
    out.push(assistant)
    const calls = message.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
    if (calls.length === 0) continue
    // The results of these calls, up to the next assistant message.
    const results = new Map<string, Extract<ModelMessage, { role: 'tool' }>[]>()
    const later: ModelMessage[] = []
    let j = i + 1
    for (; j < history.length && history[j]!.role !== 'assistant'; j++) {
      const next = history[j]!
      if (next.role === 'tool') {
        const list = results.get(next.callId) ?? []
        list.push(next)
        results.set(next.callId, list)
      } else later.push(next)
    }
    const images: ChatContentPart[] = []
    for (const call of calls) {
      const result = results.get(call.id)?.shift()
      if (result === undefined) {
        out.push({ role: 'tool', tool_call_id: providerToolCallId(call.id), content: 'Error: no result was recorded for this tool call.' })
        continue
      }
      const text = joinText(result.content)
      out.push({ role: 'tool', tool_call_id: providerToolCallId(call.id), content: result.isError ? `Error: ${text}` : text })
      const pictures = result.content.filter((block) => block.type === 'image')
      if (pictures.length > 0) {
        images.push({ type: 'text', text: `Images returned by the tool "${result.name}" (call ${providerToolCallId(call.id)}):` })
        for (const block of pictures) images.push(imagePart(block))
      }
    }
    if (images.length > 0) out.push({ role: 'user', content: images })
    for (const next of later) out.push(userMessage((next as Extract<ModelMessage, { role: 'user' }>).content))
    i = j - 1
  }
  return out
}

function userMessage(content: readonly ContentBlock[]): ChatMessage {
  if (content.every((block) => block.type === 'text')) return { role: 'user', content: joinText(content) }
  return {
    role: 'user',
    content: content.map((block): ChatContentPart => (block.type === 'text' ? { type: 'text', text: block.text } : imagePart(block))),
  }
}

/** `undefined` when there is nothing to send (no text, no tool call: e.g. an interrupted message with reasoning only). */
function assistantMessage(content: readonly AssistantBlock[], settings: RequestSettings): ChatMessage | undefined {
  const texts: string[] = []
  const reasoning: string[] = []
  const calls: ChatToolCall[] = []
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text !== '') texts.push(block.text)
    } else if (block.type === 'tool-call') {
      calls.push({ id: providerToolCallId(block.id), type: 'function', function: { name: block.name, arguments: sentArguments(block.arguments) } })
    } else if (block.provider === settings.provider) {
      // Another provider's reasoning (Anthropic thinking, another server's reasoning_content) is dropped.
      reasoning.push(block.text)
    }
  }
  if (texts.length === 0 && calls.length === 0) return undefined
  const message: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content: texts.length > 0 ? texts.join('\n\n') : null }
  if (calls.length > 0) {
    message.tool_calls = calls
    if (settings.reasoningPassback && reasoning.length > 0) message.reasoning_content = reasoning.join('')
  }
  return message
}

/**
 * A tool call's arguments as sent back: as written when they are a JSON object, else `{}` — none
 * (streamed as none, or cut off before any), broken JSON (a model's mistake, a stream cut inside
 * them), or another JSON value. Servers such as vLLM parse the field as a JSON object and refuse
 * the whole request otherwise, so one broken call would fail every later request of the session;
 * the call's tool result already told the model its arguments were invalid. The anthropic and
 * ai-sdk adapters send the same `{}`.
 */
function sentArguments(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return text
  } catch {
    // not JSON: `{}`
  }
  return '{}'
}

function joinText(content: readonly ContentBlock[]): string {
  const texts: string[] = []
  for (const block of content) if (block.type === 'text') texts.push(block.text)
  return texts.join('\n\n')
}

function imagePart(block: Extract<ContentBlock, { type: 'image' }>): ChatContentPart {
  return { type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } }
}
