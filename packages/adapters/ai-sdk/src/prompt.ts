import type {
  LanguageModelV3FilePart, LanguageModelV3FunctionTool, LanguageModelV3Message, LanguageModelV3Prompt,
  LanguageModelV3ReasoningPart, LanguageModelV3ToolCallPart, LanguageModelV3ToolResultOutput,
  LanguageModelV3TextPart, LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider'
import type { ContentBlock, ImageBlock, ModelMessage, ModelRequest, ReasoningBlock, ToolSpec } from '@bosun/core'
import type { AiSdkSpecificationVersion } from './options.js'

// The prompt is built with the V3 types, which V2 and V4 share but for two details: how an
// image is given (`imagePart`) and how a tool result carries one (`toolOutput`). Those two
// build the shape of the model's own version; the result is cast at the `doStream` call.

/**
 * The names a provider id answers to: `anthropic.messages` → `anthropic`, `messages`;
 * `amazon-bedrock` → `amazon-bedrock`, `amazon`, `bedrock`. The first is the provider family,
 * the key AI SDK providers read their `providerOptions` under.
 */
export function providerKeys(provider: string): string[] {
  return [...new Set([...provider.split('.'), ...provider.split(/[.-]/)])].filter((key) => key !== '')
}

/** `anthropic.messages` → `anthropic`. */
export function providerFamily(provider: string): string {
  return provider.split('.')[0] || provider
}

/**
 * Whether reasoning recorded from `reasoningProvider` may be sent back to the model of
 * `modelProvider`: only to the same provider, because a signature is only valid where it was made.
 */
export function acceptsReasoning(modelProvider: string, reasoningProvider: string | undefined): boolean {
  return reasoningProvider !== undefined && providerKeys(modelProvider).includes(reasoningProvider)
}

/**
 * A text block that is empty or whitespace only carries nothing, and some providers refuse it
 * (Anthropic: "text content blocks must contain non-whitespace text", on every later turn of a
 * session that holds one — a model's "\n\n" before a tool call, a blank caption beside an image).
 */
const isBlank = (text: string): boolean => text.trim() === ''

/** Builds the AI SDK prompt of a request: system first, then the history in order. */
export function toPrompt(request: ModelRequest, spec: AiSdkSpecificationVersion, modelProvider: string): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Message[] = []
  if (request.system !== '') prompt.push({ role: 'system', content: request.system })
  for (const message of request.messages) {
    switch (message.role) {
      case 'user': {
        const content: Array<LanguageModelV3TextPart | LanguageModelV3FilePart> = []
        for (const block of message.content) {
          if (block.type !== 'text') content.push(imagePart(block, spec))
          else if (!isBlank(block.text)) content.push({ type: 'text', text: block.text })
        }
        // A user message of blank text only carries nothing; providers refuse an empty one.
        if (content.length > 0) prompt.push({ role: 'user', content })
        break
      }
      case 'assistant': {
        const content = assistantParts(message.content, modelProvider)
        // An assistant message left empty (only foreign reasoning, say) is left out: providers reject it.
        if (content.length > 0) prompt.push({ role: 'assistant', content })
        break
      }
      case 'tool': {
        const part = toolResultPart(message, spec)
        const last = prompt[prompt.length - 1]
        // The results of one step go together in one tool message, as the AI SDK itself sends them.
        if (last?.role === 'tool') last.content.push(part)
        else prompt.push({ role: 'tool', content: [part] })
        break
      }
    }
  }
  return prompt
}

/** The tools of a request as AI SDK function tools, or `undefined` when there are none. */
export function toTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] | undefined {
  if (tools.length === 0) return undefined
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool['inputSchema'],
  }))
}

type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number]

function assistantParts(blocks: Extract<ModelMessage, { role: 'assistant' }>['content'], modelProvider: string): AssistantPart[] {
  const parts: AssistantPart[] = []
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        if (!isBlank(block.text)) parts.push({ type: 'text', text: block.text })
        break
      case 'reasoning': {
        const part = reasoningPart(block, modelProvider)
        if (part) parts.push(part)
        break
      }
      case 'tool-call': {
        const part: LanguageModelV3ToolCallPart = {
          type: 'tool-call',
          toolCallId: block.id,
          toolName: block.name,
          input: parseArguments(block.arguments),
        }
        parts.push(part)
        break
      }
    }
  }
  return parts
}

/**
 * Reasoning goes back only to the provider that produced it, its signature (if any) as
 * `providerOptions[provider].signature` (where Anthropic and Bedrock read it). Reasoning of
 * another provider (or of none) is dropped: a foreign signature makes the request fail.
 * Anthropic redacted thinking, as the native `anthropic` adapter records it (empty text, the data
 * as signature), goes back as `providerOptions.anthropic.redactedData`, which `@ai-sdk/anthropic`
 * sends as a `redacted_thinking` block (as a signature it would be an empty, invalid `thinking`).
 */
function reasoningPart(block: ReasoningBlock, modelProvider: string): LanguageModelV3ReasoningPart | undefined {
  if (!acceptsReasoning(modelProvider, block.provider)) return undefined
  if (block.provider === 'anthropic' && block.text === '' && block.signature !== undefined && block.signature !== '') {
    return { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: block.signature } } }
  }
  if (block.signature !== undefined && block.signature !== '') {
    return { type: 'reasoning', text: block.text, providerOptions: { [block.provider!]: { signature: block.signature } } }
  }
  return block.text === '' ? undefined : { type: 'reasoning', text: block.text }
}

/** The arguments JSON as a value; empty or unparsable arguments (a cut-off call) become `{}`. */
function parseArguments(text: string): unknown {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as unknown
  } catch {
    return {}
  }
}

function imagePart(block: ImageBlock, spec: AiSdkSpecificationVersion): LanguageModelV3FilePart {
  if (spec === 'v4') {
    // V4 wraps file data: `{ type: 'data', data }`.
    return { type: 'file', mediaType: block.mediaType, data: { type: 'data', data: block.data } } as unknown as LanguageModelV3FilePart
  }
  return { type: 'file', mediaType: block.mediaType, data: block.data }
}

function toolResultPart(message: Extract<ModelMessage, { role: 'tool' }>, spec: AiSdkSpecificationVersion): LanguageModelV3ToolResultPart {
  return { type: 'tool-result', toolCallId: message.callId, toolName: message.name, output: toolOutput(message.content, message.isError === true, spec) }
}

/**
 * Text results are `{ type: 'text' | 'error-text', value }`. A result with images is
 * `{ type: 'content', value: [...] }` (no error variant exists for it), images written as the
 * model's version spells them: `media` (V2), `image-data` (V3), `file` (V4).
 */
function toolOutput(content: readonly ContentBlock[], isError: boolean, spec: AiSdkSpecificationVersion): LanguageModelV3ToolResultOutput {
  if (content.every((block) => block.type === 'text')) {
    const value = content.map((block) => (block as { text: string }).text).join('')
    return isError ? { type: 'error-text', value } : { type: 'text', value }
  }
  const value = content.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text }
    if (spec === 'v2') return { type: 'media', data: block.data, mediaType: block.mediaType }
    if (spec === 'v3') return { type: 'image-data', data: block.data, mediaType: block.mediaType }
    return { type: 'file', data: { type: 'data', data: block.data }, mediaType: block.mediaType }
  })
  return { type: 'content', value } as LanguageModelV3ToolResultOutput
}
