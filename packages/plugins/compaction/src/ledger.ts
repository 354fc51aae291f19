import type { BosunEventMap, SessionEvent } from '@bosun/core'
import { messageChars } from './estimate.js'

/** One message of the surface, as the ledger sees it. */
export interface LedgerEntry {
  /** The seq of the event the message came from (for a summary: of its `compaction/summary`). */
  readonly seq: number
  /** Estimated size, in characters. */
  readonly chars: number
  /** The first `user/message` of a step: history may be cut right before it. */
  readonly boundary: boolean
  /** A compaction summary. */
  readonly summary: boolean
}

/**
 * A running account of the model-visible history: one entry per surface message, with the seq
 * it came from and its estimated size, kept current from the log one event at a time — so the
 * size check before each request costs O(1), not a rescan of the history.
 *
 * It applies the events exactly as the core's surface does (user and tool messages, non-empty
 * assistant messages, `compaction/summary` replacing the messages of events before
 * `firstKeptSeq`), so entry `i` describes `surface.messages[i]`; {@link Ledger.matches} checks it.
 */
export class Ledger {
  #entries: LedgerEntry[] = []
  #chars = 0

  /** Folds a whole log. */
  static fromEvents(events: readonly SessionEvent[]): Ledger {
    const ledger = new Ledger()
    for (const event of events) ledger.apply(event, events)
    return ledger
  }

  get entries(): readonly LedgerEntry[] {
    return this.#entries
  }

  get length(): number {
    return this.#entries.length
  }

  /** Estimated size of the whole history, in characters. */
  get chars(): number {
    return this.#chars
  }

  /** True when the ledger describes `messages` (the surface) entry for entry. */
  matches(messages: readonly unknown[]): boolean {
    return messages.length === this.#entries.length
  }

  /** Applies one appended event; `events` is the log it belongs to (for the event before it). */
  apply(event: SessionEvent, events: readonly SessionEvent[]): void {
    switch (event.type) {
      case 'user/message': {
        const boundary = events[event.seq - 1]?.type === 'step/start'
        this.#push({ seq: event.seq, chars: messageChars(event.data as BosunEventMap['user/message']), boundary, summary: false })
        break
      }
      case 'assistant/message': {
        const { message } = event.data as BosunEventMap['assistant/message']
        if (message.content.length > 0) this.#push({ seq: event.seq, chars: messageChars(message), boundary: false, summary: false })
        break
      }
      case 'tool/result': {
        const result = event.data as BosunEventMap['tool/result']
        this.#push({ seq: event.seq, chars: messageChars({ role: 'tool', ...result }), boundary: false, summary: false })
        break
      }
      case 'compaction/summary': {
        const { summary, firstKeptSeq } = event.data as BosunEventMap['compaction/summary']
        if (typeof summary === 'string' && Number.isSafeInteger(firstKeptSeq)) this.#compact(summary, firstKeptSeq, event.seq)
        break
      }
    }
  }

  #push(entry: LedgerEntry): void {
    this.#entries.push(entry)
    this.#chars += entry.chars
  }

  #compact(summary: string, firstKeptSeq: number, seq: number): void {
    let keep = 0
    while (keep < this.#entries.length && this.#entries[keep]!.seq < firstKeptSeq) this.#chars -= this.#entries[keep++]!.chars
    const entry: LedgerEntry = { seq, chars: summaryChars(summary), boundary: false, summary: true }
    this.#entries = [entry, ...this.#entries.slice(keep)]
    this.#chars += entry.chars
  }
}

/** Estimated size of a summary message holding `summary`. */
export function summaryChars(summary: string): number {
  return messageChars({ role: 'user', content: [{ type: 'text', text: summary }] })
}
