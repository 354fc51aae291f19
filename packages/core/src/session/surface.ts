import type { ModelMessage } from '../model.js'
import type { BosunEventMap, SessionEvent } from './events.js'
import type { Session } from './session.js'
import { readOnlyPrefix } from './read-only-view.js'

const EMPTY: readonly never[] = Object.freeze([])

/**
 * The model-visible history, a projection of the log maintained incrementally: each event costs
 * O(1), so the work per step never grows with the length of the history. `messages` is
 * append-only and is handed to the model request without a copy.
 *
 * A surface attached to a session is built on its first read (`messages`, `seqs`, `apply`), not
 * when attached: until then it keeps how many of the log's events it stood for then, and the
 * events appended since (none for a session that is only loaded). An idle
 * session that never runs a turn so holds no copy of its history's messages (their array, their
 * seqs and a small object per user message and tool result: ~2 KiB for figure 6's 40 messages;
 * docs/benchmarks.md, section 6, goal 2). The build is the same fold over the same events, so
 * what a read returns is unchanged, observers' pre-state included.
 */
export class Surface {
  #messages: ModelMessage[] = []
  /** The seq of the event each message came from (parallel to #messages), for compaction. */
  #seqs: number[] = []
  /** The last views handed out, reused while nothing changed (a view is O(1), but not free). */
  #messagesView: readonly ModelMessage[] = EMPTY
  #seqsView: readonly number[] = EMPTY
  /** The session of an attached surface (set once: a field that changes type deoptimizes its readers). */
  #source: Session | undefined
  /** True while an attached surface has not been built. */
  #unbuilt = false
  /** How many of the source's events the surface stood for when attached. */
  #through = 0
  /**
   * The events whose projections ran since, in the order they ran (an observer's append runs its
   * projection before the outer event's): folded after the first `#through`, in that order, as
   * an eager surface applied them. An observer of the event being appended (its projection has
   * not run) sees the surface without it. `undefined` while none.
   */
  #since: SessionEvent[] | undefined

  /** The surface of the whole log (seed included), kept current; built on its first read. */
  static attach(session: Session): Surface {
    const surface = new Surface()
    surface.#source = session
    surface.#unbuilt = true
    surface.#through = session.length
    session.project((event) => {
      if (surface.#unbuilt) (surface.#since ??= []).push(event)
      else surface.#apply(event)
    })
    return surface
  }

  /** Folds the events it stands for, if that was put off: once. */
  #build(): void {
    if (!this.#unbuilt) return
    this.#unbuilt = false
    // By seq, not through `events`: a sealed log's view would take a trap per index.
    const source = this.#source!
    for (let i = 0; i < this.#through; i++) this.#apply(source.eventAt(i)!)
    const since = this.#since
    this.#since = undefined
    if (since !== undefined) for (const event of since) this.#apply(event)
  }

  /**
   * The history as it is now: a read-only view (writes throw READ_ONLY) that keeps showing this
   * prefix after later appends, so a request made from it is a consistent snapshot. O(1).
   */
  get messages(): readonly ModelMessage[] {
    this.#build()
    // Views are reset to EMPTY when the array is replaced, so equal lengths mean the same prefix.
    if (this.#messagesView.length !== this.#messages.length) this.#messagesView = readOnlyPrefix(this.#messages, this.#messages.length, 'request.messages')
    return this.#messagesView
  }

  /**
   * The seq of the event each message came from, parallel to `messages` (a summary counts as
   * `firstKeptSeq - 1`). Ascending; for plugins that choose cut points, such as compaction.
   */
  get seqs(): readonly number[] {
    this.#build()
    if (this.#seqsView.length !== this.#seqs.length) this.#seqsView = readOnlyPrefix(this.#seqs, this.#seqs.length, 'surface.seqs')
    return this.#seqsView
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
    // New arrays: views of the old ones stay valid snapshots; new views are made on the next read.
    this.#messagesView = EMPTY
    this.#seqsView = EMPTY
    // The summary stands for everything before firstKeptSeq: recording it there keeps the seqs
    // ascending, so a later compaction can cut anywhere in what this one kept.
    this.#seqs = [Math.min(seq, firstKeptSeq - 1), ...this.#seqs.slice(keep)]
  }

  /** Applies one more event (after the ones it stands for). */
  apply(event: SessionEvent): void {
    this.#build()
    this.#apply(event)
  }

  #apply(event: SessionEvent): void {
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
