import { messageText, type SessionEvent, type UserMessage } from '@bosun/core'
import { PART_DEPTH, withinDepth } from './ai-sdk-chat.js'
import { nestsDeeperThan } from './request.js'

/**
 * The one translation of a turn's log events into AI SDK UI message chunks: the chat stream
 * (ai-sdk.ts) sends them as they are logged, the chat's messages route (ai-sdk-messages.ts) folds
 * them into the parts of the turn's message — so a chat loaded back has the parts it streamed.
 */

/** A UI message stream chunk (v1), as the host writes one. */
export type UiChunk = { type: string } & Record<string, unknown>

/** The AI SDK's finish reasons (`finish.finishReason`, what `useChat`'s `onFinish` is given). */
type UiFinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other'

/**
 * The `finishReason` of a turn's `finish` part: from how it ended, and for a completed turn from
 * how its last step ended (a model's `content-filter` stop completes the turn too).
 */
function uiFinishReason(reason: string, lastStep: string | undefined): UiFinishReason {
  if (reason === 'max-tokens') return 'length'
  if (reason === 'error') return 'error'
  if (reason !== 'completed') return 'other' // aborted, blocked by a pre-step plugin, interrupted by a crash
  if (lastStep === 'content-filter' || lastStep === 'tool-calls') return lastStep
  return lastStep === 'max-tokens' ? 'length' : 'stop'
}

/** A tool result's content as text: a string as it is, blocks by their text. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return messageText({ content })
  return JSON.stringify(content)
}

/**
 * A tool call's input as its part carries it: the parsed arguments, or their text when they are
 * not JSON or nest deeper than a part may ({@link PART_DEPTH}: the client sends the part back).
 */
function toolInput(args: string): unknown {
  if (nestsDeeperThan(args, PART_DEPTH - 1)) return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

/** The message id of turn `turn`'s answer: the same on every stream of the turn and every load of the chat. */
export const turnMessageId = (turn: number): string => `bosun-turn-${turn}`

/** The chunks of one turn's answer, event by event (its text and reasoning parts numbered in the turn). */
export class TurnChunks {
  /** The turn's step running (its number in the turn: a steer's stream starts at a later step). */
  step = 0
  #part = 0
  #open: { kind: 'text' | 'reasoning'; id: string } | undefined
  /** How the turn's last ended step finished (`step/end`), for the `finish` part's reason. */
  #lastStep: string | undefined

  constructor(readonly turn: number) {}

  start(): UiChunk {
    return { type: 'start', messageId: turnMessageId(this.turn) }
  }

  /** Ends an open text or reasoning part. */
  closeOpen(): UiChunk[] {
    if (!this.#open) return []
    const end = { type: `${this.#open.kind}-end`, id: this.#open.id }
    this.#open = undefined
    return [end]
  }

  #delta(kind: 'text' | 'reasoning', text: string): UiChunk[] {
    const out: UiChunk[] = []
    if (this.#open?.kind !== kind) {
      out.push(...this.closeOpen())
      this.#open = { kind, id: `${kind}-${this.turn}-${++this.#part}` }
      out.push({ type: `${kind}-start`, id: this.#open.id })
    }
    out.push({ type: `${kind}-delta`, id: this.#open!.id, delta: text })
    return out
  }

  /**
   * The chunks of `event`, logged while turn `current` runs: none for an event of another turn. A
   * user/message carries no turn number (its data is the message): it belongs to the turn running
   * when it is logged. Every other event of a turn names its turn.
   */
  translate(event: SessionEvent, current: number | undefined): UiChunk[] {
    const turn = event.type === 'user/message' ? current : (event.data as { turn?: number }).turn
    if (turn !== this.turn) return []
    switch (event.type) {
      case 'step/start':
        this.step = (event.data as { step: number }).step
        return [{ type: 'start-step' }]
      case 'user/message': {
        // Input that rides a later step of the turn: a steer (or an injected context).
        if (this.step <= 1) return []
        const message = event.data as UserMessage
        return [{ type: 'data-bosun-steer', id: message.id, data: { id: message.id, text: messageText(message), source: withinDepth(message.source, 2) } }]
      }
      case 'assistant/chunk': {
        const chunk = (event.data as { chunk: { type: string; text?: string } }).chunk
        if (chunk.type === 'text-delta' && chunk.text) return this.#delta('text', chunk.text)
        if (chunk.type === 'reasoning-delta' && chunk.text) return this.#delta('reasoning', chunk.text)
        return []
      }
      case 'assistant/message': {
        const out = this.closeOpen()
        const blocks = (event.data as { message: { content: { type: string; id?: string; name?: string; arguments?: string }[] } }).message.content
        for (const block of blocks) {
          if (block.type !== 'tool-call') continue
          out.push({ type: 'tool-input-available', toolCallId: block.id, toolName: block.name, input: toolInput(block.arguments ?? '') })
        }
        return out
      }
      case 'tool/result': {
        const r = event.data as { callId: string; content: unknown; isError?: boolean }
        return [r.isError === true
          ? { type: 'tool-output-error', toolCallId: r.callId, errorText: resultText(r.content) }
          : { type: 'tool-output-available', toolCallId: r.callId, output: resultText(r.content) }]
      }
      case 'step/end':
        this.#lastStep = (event.data as { finish: string }).finish
        return [...this.closeOpen(), { type: 'finish-step' }]
      case 'agent/pre-step/rejected': {
        const r = event.data as { by: string; metadata: unknown }
        return [{ type: 'data-bosun-rejected', data: { turn: this.turn, by: r.by, metadata: withinDepth(r.metadata, 2) } }]
      }
      case 'turn/end': {
        const reason = (event.data as { reason: { kind: string; reason?: unknown; error?: { message?: string } } }).reason
        const out = [...this.closeOpen(), { type: 'data-bosun-turn-end', data: { turn: this.turn, reason: withinDepth(reason, 2) } }]
        if (reason.kind === 'aborted') out.push(typeof reason.reason === 'string' ? { type: 'abort', reason: reason.reason } : { type: 'abort' })
        else if (reason.kind === 'error') out.push({ type: 'error', errorText: reason.error?.message ?? 'The turn failed.' })
        return [...out, { type: 'finish', finishReason: uiFinishReason(reason.kind, this.#lastStep) }]
      }
      default:
        return []
    }
  }
}
