import { BosunError, serializeError } from '@bosun/core'
import type { JsonValue, ModelAdapter, ModelMessage, ModelRequest, SessionEvent, Session, Surface } from '@bosun/core'
import { CHARS_PER_TOKEN, messageChars, overheadChars, tokens } from './estimate.js'
import { Ledger, summaryChars } from './ledger.js'
import type { CompactionSettings } from './options.js'
import { planCut } from './plan.js'
import { SUMMARY_PREFIX, summarize } from './summarize.js'

/** One compaction to attempt. */
export interface CompactionRequest {
  /** Why, as `compaction/start` records it: `threshold`, `context-window`, `manual`, … */
  reason: string
  /** The model-visible history, whose head is replaced. */
  surface: Surface
  /** Who writes the summary. */
  adapter: ModelAdapter
  signal: AbortSignal
  /**
   * Skip a cut that already failed: the threshold check runs before every request, and asking
   * again for the same cut (say, in each step of a tool loop) would repeat the failure.
   */
  avoidRepeatingFailure?: boolean
}

/** `ok: false` without events when there was nothing to do; with `compaction/end {ok: false}` when it failed. */
export type CompactionResult = { ok: true; firstKeptSeq: number } | { ok: false; reason: string }

/**
 * Compacts one agent's history: plans the cut from the {@link Ledger}, writes
 * `compaction/start`, asks for a summary, and writes `compaction/summary` (the surface applies
 * it) and `compaction/end`. `compaction/end` follows a `compaction/start` in every case but a
 * crash; a log that a crash cut between them is still valid (without a summary nothing changed).
 */
export class Compactor {
  #ledger: Ledger
  #running = false
  #failedCut: number | undefined
  readonly #sizes = new WeakMap<ModelMessage, number>()

  constructor(
    private readonly session: Session,
    private readonly settings: CompactionSettings,
  ) {
    this.#ledger = Ledger.fromEvents(session.events)
  }

  /** Keeps the ledger current; called for every appended event. */
  observe(event: SessionEvent): void {
    this.#ledger.apply(event, this.session.events)
  }

  /**
   * Estimated tokens of `request`: system prompt, tools and messages at 4 characters a token. When
   * the request carries the surface itself (the usual case) the history's size is the ledger's
   * running total — O(1); a history another plugin rebuilt is measured message by message.
   */
  estimateTokens(request: ModelRequest, surface: Surface): number {
    const history = request.messages === surface.messages && this.#sync(surface) ? this.#ledger.chars : this.#measure(request.messages)
    return tokens(overheadChars(request) + history)
  }

  async run(request: CompactionRequest): Promise<CompactionResult> {
    const { reason, surface, adapter, signal } = request
    if (this.#running) return { ok: false, reason: 'busy' }
    if (!this.#sync(surface)) return { ok: false, reason: 'out-of-sync' }
    const { contextWindow, retainRatio } = this.settings
    const history = this.#ledger.chars
    const cut = planCut(this.#ledger.entries, retainRatio * Math.min(contextWindow * CHARS_PER_TOKEN, history))
    if (cut === undefined) return { ok: false, reason: 'nothing-to-compact' }
    if (request.avoidRepeatingFailure && cut.firstKeptSeq === this.#failedCut) return { ok: false, reason: 'failed-before' }

    const replaced = { messages: cut.count, tokens: tokens(cut.replacedChars) }
    this.session.append('compaction/start', {
      reason, estimatedTokens: tokens(history), contextWindow, firstKeptSeq: cut.firstKeptSeq, replacing: replaced,
    })
    this.#running = true
    let end: { [key: string]: JsonValue } = { ok: false, reason: 'failed' }
    try {
      let text: string
      try {
        text = await summarize(adapter, surface.messages.slice(0, cut.count), signal)
      } catch (error) {
        const { code, message } = serializeError(error)
        end = signal.aborted ? { ok: false, reason: 'aborted' } : { ok: false, reason: 'summary-failed', error: { code, message } }
        return this.#failed(end, cut.firstKeptSeq)
      }
      const summary = `${SUMMARY_PREFIX}${text}`
      const summaryTokens = tokens(summaryChars(summary))
      if (text === '') {
        end = { ok: false, reason: 'empty-summary' }
        return this.#failed(end, cut.firstKeptSeq)
      }
      if (summaryChars(summary) >= cut.replacedChars) {
        end = { ok: false, reason: 'not-shorter', summaryTokens, replacing: replaced }
        return this.#failed(end, cut.firstKeptSeq)
      }
      this.session.append('compaction/summary', { summary, firstKeptSeq: cut.firstKeptSeq })
      end = { ok: true, firstKeptSeq: cut.firstKeptSeq, replaced, summaryTokens, keptTokens: tokens(cut.keptChars) }
      this.#failedCut = undefined
      return { ok: true, firstKeptSeq: cut.firstKeptSeq }
    } finally {
      // Written on every path a process survives; a crash before it leaves a valid log (see the class doc).
      this.#running = false
      this.session.append('compaction/end', end)
    }
  }

  #failed(end: { reason?: JsonValue }, firstKeptSeq: number): CompactionResult {
    this.#failedCut = firstKeptSeq
    return { ok: false, reason: String(end.reason) }
  }

  /** Rebuilds the ledger if it lost step with the surface (it should not); false if that did not help. */
  #sync(surface: Surface): boolean {
    if (this.#ledger.matches(surface.messages)) return true
    this.#ledger = Ledger.fromEvents(this.session.events)
    if (this.#ledger.matches(surface.messages)) return true
    this.session.reportError(
      new BosunError('COMPACTION_OUT_OF_SYNC', `compaction: the history has ${surface.messages.length} messages but the log gives ${this.#ledger.length}; compaction is skipped.`),
      'compaction',
    )
    return false
  }

  #measure(messages: readonly ModelMessage[]): number {
    let chars = 0
    for (const message of messages) {
      let size = this.#sizes.get(message)
      if (size === undefined) this.#sizes.set(message, (size = messageChars(message)))
      chars += size
    }
    return chars
  }
}
