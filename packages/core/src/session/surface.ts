import type { ModelMessage } from '../model.js'
import type { BosunEventMap, SessionEvent } from './events.js'
import type { Session } from './session.js'

/**
 * The model-visible history, a projection of the log maintained incrementally: each event costs
 * O(1), so the work per step never grows with the length of the history. `messages` is
 * append-only and is handed to the model request without a copy.
 */
export class Surface {
  #messages: ModelMessage[] = []
  /** The seq of the event each message came from (parallel to #messages), for compaction. */
  #seqs: number[] = []

  /** Builds the surface from the whole log (seed included) and keeps it current. */
  static attach(session: Session): Surface {
    const surface = new Surface()
    for (const event of session.events) surface.apply(event)
    session.project((event) => surface.apply(event))
    return surface
  }

  get messages(): readonly ModelMessage[] {
    return this.#messages
  }

  /**
   * The seq of the event each message came from, parallel to `messages` (a summary counts as
   * `firstKeptSeq - 1`). Ascending; for plugins that choose cut points, such as compaction.
   */
  get seqs(): readonly number[] {
    return this.#seqs
  }

  #push(message: ModelMessage, seq: number): void {
    this.#messages.push(message)
    this.#seqs.push(seq)
  }

  /**
   * Replaces the messages of events before `firstKeptSeq` with one summary message. A new array
   * (not an in-place change): a request that holds the old one keeps a consistent view. O(n),
   * but only at a compaction.
   */
  #compact(summary: string, firstKeptSeq: number, seq: number): void {
    let keep = 0
    while (keep < this.#seqs.length && this.#seqs[keep]! < firstKeptSeq) keep++
    const message: ModelMessage = Object.freeze({
      role: 'user',
      id: `compaction-${seq}`,
      content: Object.freeze([Object.freeze({ type: 'text' as const, text: summary })]),
    })
    this.#messages = [message, ...this.#messages.slice(keep)]
    // The summary stands for everything before firstKeptSeq: recording it there keeps the seqs
    // ascending, so a later compaction can cut anywhere in what this one kept.
    this.#seqs = [Math.min(seq, firstKeptSeq - 1), ...this.#seqs.slice(keep)]
  }

  apply(event: SessionEvent): void {
    switch (event.type) {
      case 'user/message': {
        const message = event.data as BosunEventMap['user/message']
        this.#push(Object.freeze({ role: 'user', id: message.id, content: message.content }), event.seq)
        break
      }
      case 'assistant/message': {
        const { message } = event.data as BosunEventMap['assistant/message']
        if (message.content.length === 0) break
        this.#push(message, event.seq)
        break
      }
      case 'tool/result': {
        const result = event.data as BosunEventMap['tool/result']
        // `name` travels on the result: a call that never started has no tool/call to take it from.
        const name = result.name
        this.#push(
          Object.freeze({
            role: 'tool',
            callId: result.callId,
            name,
            content: result.content,
            ...(result.isError ? { isError: true } : {}),
          }),
          event.seq,
        )
        break
      }
      case 'compaction/summary': {
        const { summary, firstKeptSeq } = event.data as BosunEventMap['compaction/summary']
        if (typeof summary === 'string' && Number.isSafeInteger(firstKeptSeq)) this.#compact(summary, firstKeptSeq, event.seq)
        break
      }
    }
  }
}
