import type { InboxSplice } from '../inbox/types.js'
import type { Delegation, SessionEvent, SessionHeader } from '../session/events.js'
import type { UserMessage } from '../session/messages.js'
import type { SessionSummary } from './types.js'

/**
 * What a session list tells about a session, computed from its log alone: the optional fields of
 * {@link SessionSummary} that a store may keep so that listing need not read every log.
 */
export interface LogSummary {
  /** Number of events. */
  length: number
  /** Time of the last event; the creation time for an empty log. */
  lastActivity: number
  /** The last turn number started (0 before the first turn). */
  turns: number
  /**
   * The text of the first message a user sent (`source.kind: 'user'`), else of the first message
   * queued (the first inserted by an inbox splice); `null` when there is neither. A preview: at
   * most {@link FIRST_PROMPT_MAX} code points, a longer text cut and ending in `…`.
   */
  firstPrompt: string | null
  /**
   * Messages still queued: of every inbox splice after the seed, the messages inserted minus
   * those removed (what the agent's inbox replays to). The sum of {@link LogSummary.queued}.
   */
  pending: number
  /** {@link LogSummary.pending} per queue: how many messages each queue holds after the log. */
  queued: QueuedCounts
}

/** How many messages each inbox queue holds (a summary's `queued`). */
export type QueuedCounts = NonNullable<SessionSummary['queued']>

/**
 * How many messages `Array.prototype.splice(start, removedCount ?? 0)` removes from a queue of
 * `length`: what the host's inbox fold and the consumed-work fold remove, for any value a stored
 * splice holds (a well-formed one is within bounds; a damaged one is clamped, never below zero).
 */
function removedBy(length: number, start: unknown, removedCount: unknown): number {
  const from = integer(start)
  const at = from < 0 ? Math.max(length + from, 0) : Math.min(from, length)
  return Math.min(Math.max(integer(removedCount ?? 0), 0), length - at)
}

/** A queue's count as a saved state holds it. */
function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0
}

/** `ToIntegerOrInfinity`, as `splice` reads its arguments (NaN: 0); a JSON value only (never a getter that throws). */
function integer(value: unknown): number {
  const n = Math.trunc(typeof value === 'number' ? value : Number(value))
  return Number.isNaN(n) ? 0 : n
}

/**
 * The most code points a summary's `firstPrompt` holds. A list shows a preview, and a store writes
 * the summary with every batch (SQLite, PostgreSQL): the whole text of a long first prompt made
 * every batch's write grow with it. A longer text keeps its first `FIRST_PROMPT_MAX - 1` code
 * points (a surrogate pair is never split) followed by `…`, so a preview is never cut again.
 */
export const FIRST_PROMPT_MAX = 200

/** `text` as a summary keeps it: whole up to {@link FIRST_PROMPT_MAX} code points, else cut and ending in `…`. */
function preview(text: string): string {
  // Never more code points than code units: a text this short is whole.
  if (text.length <= FIRST_PROMPT_MAX) return text
  let end = 0
  let cut = 0
  for (let count = 0; end < text.length; count++) {
    if (count === FIRST_PROMPT_MAX - 1) cut = end
    else if (count === FIRST_PROMPT_MAX) return `${text.slice(0, cut)}…`
    // A pair is one code point; a lone surrogate counts as one.
    end += text.codePointAt(end)! > 0xffff ? 2 : 1
  }
  return text
}

/**
 * A {@link LogSummary} built one event at a time (O(1) each), for a store that keeps the summary
 * beside the log and updates it with every batch it writes. `summarizeLog` folds a whole log.
 */
export class LogSummaryFold {
  #length = 0
  #lastActivity: number
  #turns = 0
  #firstPrompt: string | undefined
  #firstQueued: string | undefined
  #nextTurn = 0
  #nextStep = 0
  /**
   * The pending total of a fold whose queues are not known (resumed from a state saved by a build
   * that did not count each queue); `undefined` when `#nextTurn` and `#nextStep` hold the counts.
   */
  #pendingOnly: number | undefined
  readonly #seedLength: number

  constructor(header: Pick<SessionHeader, 'createdAt' | 'seedLength'>) {
    this.#lastActivity = header.createdAt
    this.#seedLength = header.seedLength ?? 0
  }

  /** The fold of a whole log, to fold on from. */
  static of(header: Pick<SessionHeader, 'createdAt' | 'seedLength'>, events: readonly SessionEvent[]): LogSummaryFold {
    const fold = new LogSummaryFold(header)
    for (const event of events) fold.add(event)
    return fold
  }

  get length(): number {
    return this.#length
  }

  /**
   * A user's message was delivered: the summary's `firstPrompt` is final, no later event changes
   * it — a reader that wants only that may stop folding (it reads a log's first events, not all).
   */
  get firstPromptFinal(): boolean {
    return this.#firstPrompt !== undefined
  }

  add(event: SessionEvent): void {
    const seq = this.#length++
    this.#lastActivity = event.time
    switch (event.type) {
      // Read defensively: Session.append takes any JSON object under a core type, and a store folds
      // every event it writes — a throw here would fail the commit round of every session in it.
      case 'turn/start': {
        const turn = (event.data as Partial<{ turn: number }> | null)?.turn
        if (typeof turn === 'number') this.#turns = turn
        break
      }
      case 'user/message':
        if (this.#firstPrompt === undefined && (event.data as Partial<UserMessage> | null)?.source?.kind === 'user') this.#firstPrompt = previewOf(event.data)
        break
      case 'agent/inbox/spliced': {
        const { target, start, inserted, removedCount } = (event.data ?? {}) as Partial<InboxSplice>
        const count = Array.isArray(inserted) ? inserted.length : 0
        if (this.#firstQueued === undefined && this.#firstPrompt === undefined && count > 0) this.#firstQueued = previewOf(inserted![0])
        if (seq < this.#seedLength) break
        // As the host's inbox fold splices its arrays: a damaged splice removes what `splice` would
        // (never more than is queued, never below zero); one with no known queue or no array of
        // messages (which no fold can apply) counts nothing.
        if (!Array.isArray(inserted)) break
        if (this.#pendingOnly !== undefined) {
          // Queues not known: as splicing gives for a splice within its queue (every one the inbox
          // writes: normalised coordinates, which its replay checks), bounded by the total, so
          // exactly what a full read gives for a log the inbox replays, and never below zero.
          if (target === 'next-turn' || target === 'next-step') this.#pendingOnly += count - removedBy(this.#pendingOnly, start, removedCount)
        } else if (target === 'next-turn') this.#nextTurn += count - removedBy(this.#nextTurn, start, removedCount)
        else if (target === 'next-step') this.#nextStep += count - removedBy(this.#nextStep, start, removedCount)
        break
      }
    }
  }

  /** A copy that folds on independently (a batch's fold, kept only once the batch is written). */
  clone(): LogSummaryFold {
    const copy = new LogSummaryFold({ createdAt: this.#lastActivity, seedLength: this.#seedLength })
    copy.#length = this.#length
    copy.#turns = this.#turns
    copy.#firstPrompt = this.#firstPrompt
    copy.#firstQueued = this.#firstQueued
    copy.#nextTurn = this.#nextTurn
    copy.#nextStep = this.#nextStep
    copy.#pendingOnly = this.#pendingOnly
    return copy
  }

  /**
   * The fold as plain JSON, to keep beside a log and fold on from later ({@link LogSummaryFold.fromState}):
   * a store that keeps a summary as a cache (JSONL's sidecar file) resumes the fold after the events it covers.
   * A fold resumed from a state without per-queue counts gives such a state again
   * ({@link LogSummaryPendingState}: never one with counts it does not have).
   */
  state(): LogSummaryState | LogSummaryPendingState {
    const counts = this.#pendingOnly === undefined ? { queued: [this.#nextTurn, this.#nextStep] as [number, number] } : { pending: this.#pendingOnly }
    return {
      length: this.#length, lastActivity: this.#lastActivity, turns: this.#turns, ...counts, seedLength: this.#seedLength,
      ...(this.#firstPrompt === undefined ? {} : { firstPrompt: this.#firstPrompt }),
      ...(this.#firstQueued === undefined ? {} : { firstQueued: this.#firstQueued }),
    }
  }

  /**
   * The fold a {@link LogSummaryFold.state} was taken of; `undefined` for anything that is not one
   * (a damaged or foreign value). A state saved by a build that did not count each queue (a
   * `pending` total, no `queued`: {@link LogSummaryPendingState}) gives a fold whose queues are not
   * known: it folds on the total alone and its {@link LogSummaryFold#summary} has no `queued` (the
   * total cannot be split; a reader that needs the counts reads the log). A text longer than a
   * preview (a state saved by a build that kept it whole) is cut as {@link LogSummaryFold#add} cuts it.
   */
  static fromState(value: unknown): LogSummaryFold | undefined {
    if (typeof value !== 'object' || value === null) return undefined
    const { length, lastActivity, turns, queued, pending, seedLength, firstPrompt, firstQueued } = value as Partial<LogSummaryState & LogSummaryPendingState>
    if (!Number.isSafeInteger(length) || length! < 0 || !Number.isSafeInteger(seedLength) || seedLength! < 0) return undefined
    if (typeof lastActivity !== 'number' || typeof turns !== 'number') return undefined
    const counted = Array.isArray(queued) && queued.length === 2 && isCount(queued[0]) && isCount(queued[1])
    if (queued === undefined ? !isCount(pending) : !counted) return undefined
    if ((firstPrompt !== undefined && typeof firstPrompt !== 'string') || (firstQueued !== undefined && typeof firstQueued !== 'string')) return undefined
    const fold = new LogSummaryFold({ createdAt: lastActivity, seedLength })
    fold.#length = length!
    fold.#turns = turns
    if (queued === undefined) fold.#pendingOnly = pending
    else [fold.#nextTurn, fold.#nextStep] = queued
    fold.#firstPrompt = firstPrompt === undefined ? undefined : preview(firstPrompt)
    fold.#firstQueued = firstQueued === undefined ? undefined : preview(firstQueued)
    return fold
  }

  /** The summary of the events folded; without `queued` for a fold whose queues are not known ({@link LogSummaryFold.fromState}). */
  summary(): LogSummary | Omit<LogSummary, 'queued'> {
    const fields = { length: this.#length, lastActivity: this.#lastActivity, turns: this.#turns, firstPrompt: this.#firstPrompt ?? this.#firstQueued ?? null }
    if (this.#pendingOnly !== undefined) return { ...fields, pending: this.#pendingOnly }
    return { ...fields, pending: this.#nextTurn + this.#nextStep, queued: { 'next-turn': this.#nextTurn, 'next-step': this.#nextStep } }
  }
}

/** What {@link LogSummaryFold.state} gives: the fold's whole state, JSON. */
export interface LogSummaryState {
  length: number
  lastActivity: number
  turns: number
  /** The `next-turn` and `next-step` counts. */
  queued: [number, number]
  seedLength: number
  /** The first user's message text (its preview), if any yet. */
  firstPrompt?: string
  /** The first queued message's text (its preview), if any yet (kept while there is no `firstPrompt`). */
  firstQueued?: string
}

/**
 * A state saved by a build that did not count each queue (JSONL's sidecar format 1), and what
 * {@link LogSummaryFold.state} gives for a fold resumed from one: the pending total instead of `queued`.
 */
export type LogSummaryPendingState = Omit<LogSummaryState, 'queued'> & {
  /** Messages still queued, all queues together. */
  pending: number
}

/** Code units enough to hold more than {@link FIRST_PROMPT_MAX} code points (at most two units each). */
const PREVIEW_UNITS = 2 * FIRST_PROMPT_MAX + 1

/**
 * The {@link preview} of a message's text as `messageText` gives it, `''` for a message with no
 * readable content (never a throw). Reads no more of a long text than the preview needs.
 */
function previewOf(message: unknown): string {
  const content = (message as { content?: unknown } | null)?.content
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const block of content as unknown[]) {
    if (text.length >= PREVIEW_UNITS) break
    if (typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text') {
      text += String((block as { text: unknown }).text).slice(0, PREVIEW_UNITS - text.length)
    }
  }
  return preview(text)
}

/** The {@link LogSummary} of a whole log (what a store that keeps one must agree with). */
export function summarizeLog(header: Pick<SessionHeader, 'createdAt' | 'seedLength'>, events: readonly SessionEvent[]): LogSummary {
  // A fold of a whole log counts each queue (only one resumed from an earlier build's state does not).
  return LogSummaryFold.of(header, events).summary() as LogSummary
}

/**
 * The list fields of a summary a store kept as JSON (`JSON.stringify` of a {@link LogSummary}),
 * for a session whose log now has `length` events: none unless the summary is of exactly that log
 * (one written by a build that did not keep it up to date is of a shorter log) and well-formed.
 * A `firstPrompt` longer than a preview (written by a build that kept it whole) is cut as the
 * fold cuts it, so it is what a full read gives. `queued` only from a summary that holds both
 * counts and they add up to its `pending`: one written by a build that did not count each queue
 * has none, and a reader that needs it reads the log (never a guessed split).
 */
export function summaryFields(json: string, length: number): Pick<SessionSummary, 'lastActivity' | 'turns' | 'firstPrompt' | 'pending' | 'queued'> {
  let parsed: Partial<LogSummary>
  try {
    parsed = JSON.parse(json) as Partial<LogSummary>
  } catch {
    return {}
  }
  const { lastActivity, turns, firstPrompt, pending } = parsed ?? {}
  if (parsed?.length !== length || typeof lastActivity !== 'number' || typeof turns !== 'number' || typeof pending !== 'number') return {}
  if (firstPrompt !== null && typeof firstPrompt !== 'string') return {}
  const nextTurn = parsed.queued?.['next-turn']
  const nextStep = parsed.queued?.['next-step']
  const queued = isCount(nextTurn) && isCount(nextStep) && nextTurn + nextStep === pending ? { queued: { 'next-turn': nextTurn, 'next-step': nextStep } } : {}
  return { lastActivity, turns, firstPrompt: firstPrompt === null ? null : preview(firstPrompt), pending: Math.max(0, pending), ...queued }
}

/**
 * A list entry's `delegation` from a session's header (parsed, or its JSON text as a store keeps
 * it): the header's delegation, `null` when it has none; nothing when the header does not read as
 * one (damaged: the entry does not say, and a reader that needs it reads the header and is told).
 */
export function listedDelegation(header: unknown): Pick<SessionSummary, 'delegation'> {
  let value = header
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value)
    } catch {
      return {}
    }
  }
  if (typeof value !== 'object' || value === null) return {}
  const delegation = (value as { delegation?: unknown }).delegation
  if (delegation === undefined) return { delegation: null }
  const { parentSessionId, callId, depth, mode } = (delegation ?? {}) as Partial<Delegation>
  if (typeof parentSessionId !== 'string' || typeof callId !== 'string' || typeof depth !== 'number' || (mode !== 'one-shot' && mode !== 'continuable')) return {}
  return { delegation: delegation as Delegation }
}
