import type { ContentBlock, InboxSplice, SessionEvent, UserMessage } from '@bosun/core'
import { TurnChunks, turnMessageId, type UiChunk } from './ai-sdk-turn-chunks.js'
import { InboxFold } from './log.js'

/**
 * A Bosun session as the AI SDK's `UIMessage[]`, for a chat page that reloads after a turn ended
 * (`useChat({ messages })`, `new Chat({ messages })`): each ended turn's input as user messages
 * (the messages it claimed, their ids the clientMessageIds: a turn a plugin blocked before its
 * first step logs no user/message, yet useChat shows what was sent) and its answer as the assistant message
 * `bosun-turn-<n>`, whose parts are the chunks its chat stream sends ({@link TurnChunks}) folded
 * the way the AI SDK's client folds them. A turn still running is left out of the answers (its
 * user messages are in): `resume: true` streams it.
 */

/** A UI message, as the AI SDK's `UIMessage` (without metadata). */
export interface UiMessage {
  id: string
  role: 'user' | 'assistant'
  parts: Record<string, unknown>[]
}

/** Folds a turn's chunks into its message's parts, as ai 6's `processUIMessageStream` does for the chunks the host sends. */
class PartsFold {
  readonly parts: Record<string, unknown>[] = []
  /** Text and reasoning parts by their chunk id, while open. */
  #open = new Map<string, Record<string, unknown>>()

  add(chunk: UiChunk): void {
    const { type } = chunk
    if (type === 'start-step') this.parts.push({ type: 'step-start' })
    else if (type === 'text-start' || type === 'reasoning-start') {
      const part = type === 'text-start' ? { type: 'text', text: '', state: 'streaming' } : { type: 'reasoning', id: chunk.id, text: '', state: 'streaming' }
      this.#open.set(chunk.id as string, part)
      this.parts.push(part)
    } else if (type === 'text-delta' || type === 'reasoning-delta') {
      const part = this.#open.get(chunk.id as string)!
      part.text = (part.text as string) + (chunk.delta as string)
    } else if (type === 'text-end' || type === 'reasoning-end') {
      this.#open.get(chunk.id as string)!.state = 'done'
      this.#open.delete(chunk.id as string)
    } else if (type === 'tool-input-available') {
      this.parts.push({ type: `tool-${chunk.toolName as string}`, toolCallId: chunk.toolCallId, state: 'input-available', input: chunk.input })
    } else if (type === 'tool-output-available' || type === 'tool-output-error') {
      const part = this.parts.find((p) => p.toolCallId === chunk.toolCallId && typeof p.type === 'string' && p.type.startsWith('tool-'))
      if (part === undefined) return
      if (type === 'tool-output-available') Object.assign(part, { state: 'output-available', output: chunk.output })
      else Object.assign(part, { state: 'output-error', errorText: chunk.errorText })
    } else if (type.startsWith('data-') && chunk.transient !== true) {
      // A data part with an id replaces the part of its type and id, as the client does.
      const same = chunk.id === undefined ? undefined : this.parts.find((p) => p.type === type && p.id === chunk.id)
      if (same !== undefined) same.data = chunk.data
      else this.parts.push({ ...chunk })
    }
    // start, finish-step, finish, abort, error: no part (the client keeps them as chat state).
  }
}

/** A user message's content as UI parts: its text, its images as `data:` URL file parts. */
function userParts(content: readonly ContentBlock[]): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = []
  for (const block of content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text })
    else if (block.type === 'image') parts.push({ type: 'file', mediaType: block.mediaType, url: `data:${block.mediaType};base64,${block.data}` })
  }
  return parts
}

const userMessage = (message: UserMessage): UiMessage => ({ id: message.id, role: 'user', parts: userParts(message.content) })

/** The turn being read: its chunks and parts, the messages it claimed, those that rode a later step (steers). */
interface OpenTurn {
  chunks: TurnChunks
  parts: PartsFold
  claimed: UserMessage[]
  steers: Set<string>
}

/** Builds a session's `UIMessage[]` from its events, given in order (a page at a time). */
export class ChatMessagesFold {
  readonly messages: UiMessage[] = []
  #turn: OpenTurn | undefined
  /**
   * The queues, for the messages a claim removes (a splice logs only how many). A fork's seed is
   * its parent's log as it was, folded too: a turn of the parent that a plugin blocked before its
   * first step has its input only in its claim, and the fork shows it as the parent's chat does.
   */
  #inbox = new InboxFold()

  add(event: SessionEvent): void {
    const turn = this.#turn
    // The seed ends here (a fork of a fork has one per fork): the fork's queues start empty.
    if (event.type === 'session/end-seed') {
      this.#inbox = new InboxFold()
      return
    }
    if (event.type === 'agent/inbox/spliced') {
      const removed = this.#inbox.apply(event) ?? []
      const splice = event.data as InboxSplice
      // A claim: removed, not put back (an edit), not canceled or moved between the queues.
      if (turn !== undefined && splice.outcome === undefined) turn.claimed.push(...removed.filter((m) => !splice.inserted.some((i) => i.id === m.id)))
      return
    }
    if (event.type === 'turn/start') {
      this.#turn = { chunks: new TurnChunks((event.data as { turn: number }).turn), parts: new PartsFold(), claimed: [], steers: new Set() }
      return
    }
    if (event.type === 'user/message') {
      const message = event.data as UserMessage
      if (turn === undefined) {
        this.messages.push(userMessage(message))
        return
      }
      // Input after the turn's first step rides its answer as the stream has it (data-bosun-steer).
      if (turn.chunks.step > 1) turn.steers.add(message.id)
      else if (!turn.claimed.some((m) => m.id === message.id)) turn.claimed.push(message)
    }
    if (turn === undefined) return
    for (const chunk of turn.chunks.translate(event, turn.chunks.turn)) turn.parts.add(chunk)
    if (event.type === 'turn/end' && (event.data as { turn?: number }).turn === turn.chunks.turn) {
      this.messages.push(...usersOf(turn), { id: turnMessageId(turn.chunks.turn), role: 'assistant', parts: turn.parts.parts })
      this.#turn = undefined
    }
  }

  /** The messages of the events added: a turn left open gives its user messages only. */
  result(): UiMessage[] {
    return this.#turn === undefined ? this.messages : [...this.messages, ...usersOf(this.#turn)]
  }

  /** The messages completed since the last take (or since the start), forgotten here: a reader that sends them as it goes. */
  take(): UiMessage[] {
    return this.messages.splice(0)
  }

  /** What {@link result} adds to what was taken: the messages not taken yet, and a turn left open's user messages. */
  rest(): UiMessage[] {
    return this.#turn === undefined ? this.take() : [...this.take(), ...usersOf(this.#turn)]
  }
}

/** A turn's input as user messages: what it claimed, but its steers. */
function usersOf(turn: OpenTurn): UiMessage[] {
  return turn.claimed.filter((m) => !turn.steers.has(m.id)).map(userMessage)
}
