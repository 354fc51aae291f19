import type { ModelRequest, ToolSpec } from '@bosun/core'

/** Characters per token of the cheap estimate. Real tokenizers give 3–4 for English and code. */
export const CHARS_PER_TOKEN = 4
/** What an inline image is counted as: about 1,000 tokens, whatever its base64 size. */
export const IMAGE_CHARS = 4000
/** Role markers and separators a provider adds around each message. */
const MESSAGE_OVERHEAD_CHARS = 16

/** The parts of a message the estimate reads: a surface message, or an event's data shaped like one. */
export interface MessageLike {
  readonly role: string
  readonly name?: string
  readonly content: readonly { readonly type: string; readonly text?: string; readonly name?: string; readonly arguments?: string }[]
}

/** Estimated size of one message, in characters: its text, reasoning, tool calls and images. */
export function messageChars(message: MessageLike): number {
  let chars = MESSAGE_OVERHEAD_CHARS + (message.name?.length ?? 0)
  for (const block of message.content) {
    if (block.type === 'image') chars += IMAGE_CHARS
    else if (block.type === 'tool-call') chars += (block.name?.length ?? 0) + (block.arguments?.length ?? 0)
    else chars += block.text?.length ?? 0
  }
  return chars
}

/** Characters to tokens, rounded up. */
export function tokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

const toolChars = new WeakMap<readonly ToolSpec[], number>()

/**
 * Estimated size of what a request sends besides the history — the system prompt and the tool
 * definitions — in characters. The tools' JSON is measured once per tools array.
 */
export function overheadChars(request: Pick<ModelRequest, 'system' | 'tools'>): number {
  let tools = toolChars.get(request.tools)
  if (tools === undefined) {
    tools = JSON.stringify(request.tools).length
    toolChars.set(request.tools, tools)
  }
  return request.system.length + tools
}
