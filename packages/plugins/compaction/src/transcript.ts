import type { ModelMessage } from '@bosun/core'

/**
 * Renders history as plain text for the summary request: one section per message, tool calls
 * and results included (what was done matters as much as what was said), reasoning left out
 * (it is the model's scratch work, often long, and was never part of the conversation).
 */
export function renderTranscript(messages: readonly ModelMessage[]): string {
  return messages.map(renderMessage).join('\n\n')
}

function renderMessage(message: ModelMessage): string {
  switch (message.role) {
    case 'user':
      return `[${message.id.startsWith('compaction-') ? 'summary of what came before' : 'user'}]\n${contentText(message.content)}`
    case 'assistant': {
      const parts: string[] = []
      for (const block of message.content) {
        if (block.type === 'text') parts.push(block.text)
        else if (block.type === 'tool-call') parts.push(`(calls tool ${block.name} with ${block.arguments})`)
      }
      return `[assistant]\n${parts.join('\n')}`
    }
    case 'tool':
      return `[tool result: ${message.name}${message.isError ? ', failed' : ''}]\n${contentText(message.content)}`
  }
}

function contentText(content: readonly { type: string; text?: string }[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n')
}
