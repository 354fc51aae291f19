/**
 * The parts of a step: streamed text, reasoning and tool-call arguments from `assistant/chunk`,
 * replaced by the finished `assistant/message` (authoritative — it is also all a reader gets when
 * the stream left out finished steps' chunks), then tool calls and results.
 */
import type { StepPart, StepView, ToolCard } from './view.js'
import type { AssistantBlock, Chunk } from './wire.js'

export function applyChunk(step: StepView, chunk: Chunk): void {
  switch (chunk.type) {
    case 'text-delta':
    case 'reasoning-delta': {
      const kind = chunk.type === 'text-delta' ? 'text' : 'reasoning'
      const last = step.parts[step.parts.length - 1]
      if (last !== undefined && last.kind === kind) step.parts[step.parts.length - 1] = { kind, text: last.text + chunk.text }
      else step.parts.push({ kind, text: chunk.text })
      return
    }
    case 'tool-call-delta': {
      const at = step.parts.findIndex((part) => part.kind === 'tool' && part.card.index === chunk.index)
      if (at < 0) {
        step.parts.push({ kind: 'tool', card: { index: chunk.index, callId: chunk.id ?? null, name: chunk.name ?? '', args: chunk.argumentsDelta ?? '', status: 'streaming', result: null } })
        return
      }
      const card = (step.parts[at] as { card: ToolCard }).card
      step.parts[at] = {
        kind: 'tool',
        card: { ...card, callId: card.callId ?? chunk.id ?? null, name: card.name || (chunk.name ?? ''), args: card.args + (chunk.argumentsDelta ?? '') },
      }
      return
    }
    case 'usage':
      step.usage = chunk.usage
      return
    case 'finish':
      return
  }
}

/** The finished message: its blocks become the step's parts; tool cards keep their status. */
export function applyMessage(step: StepView, blocks: readonly AssistantBlock[]): void {
  const previous = step.parts.flatMap((part) => (part.kind === 'tool' ? [part.card] : []))
  let index = 0
  const parts: StepPart[] = []
  for (const block of blocks) {
    if (block.type === 'text' || block.type === 'reasoning') {
      const last = parts[parts.length - 1]
      if (last !== undefined && last.kind === block.type) parts[parts.length - 1] = { kind: block.type, text: last.text + block.text }
      else parts.push({ kind: block.type, text: block.text })
      continue
    }
    if (block.type !== 'tool-call') continue
    const known = previous.find((card) => card.callId === block.id)
    parts.push({ kind: 'tool', card: { index: index, callId: block.id, name: block.name, args: block.arguments, status: known?.status === 'streaming' || known === undefined ? 'running' : known.status, result: known?.result ?? null } })
    index += 1
  }
  step.parts = parts
}

/** Updates the card of `callId` (a call or a result). */
export function updateCard(step: StepView, callId: string, update: (card: ToolCard) => ToolCard, fallback: () => ToolCard): void {
  const at = step.parts.findIndex((part) => part.kind === 'tool' && part.card.callId === callId)
  if (at < 0) step.parts.push({ kind: 'tool', card: update(fallback()) })
  else step.parts[at] = { kind: 'tool', card: update((step.parts[at] as { card: ToolCard }).card) }
}

/** A turn that ended leaves no card spinning: unfinished calls are canceled. */
export function settleCards(step: StepView): void {
  step.parts = step.parts.map((part) =>
    part.kind === 'tool' && (part.card.status === 'streaming' || part.card.status === 'running') ? { kind: 'tool', card: { ...part.card, status: 'canceled' } } : part,
  )
}

/** The text of a tool result's content blocks. */
export function resultText(content: readonly { type: string; text?: string }[]): string {
  return content.map((block) => (block.type === 'text' ? (block.text ?? '') : `[${block.type}]`)).join('')
}
