import type { InboxSplice, SessionEvent, SessionHeader, Store } from '@bosun/core'
import { HostError } from './errors.js'
import { InboxFold } from './log.js'

/** A store that tells where a log ends and reads ranges of it: what {@link LogTail} reads. */
export type TailStore = Store & Required<Pick<Store, 'summary' | 'readEvents' | 'header'>>

/** The store as a {@link TailStore}, or undefined when it cannot read a log's end alone (the caller reads the whole log). */
export function tailStore(store: Store): TailStore | undefined {
  const { summary, readEvents, header } = store
  return typeof summary === 'function' && typeof readEvents === 'function' && typeof header === 'function' ? (store as TailStore) : undefined
}

/** How many messages each queue holds (`SessionSummary.queued`). */
type Queued = { 'next-turn': number; 'next-step': number }

/**
 * The end of a stored session's log, read backwards a page at a time (`Store.readEvents`) and
 * only as far back as a question needs: where the log ends (`length`, from `Store.summary`, read
 * first — every event before it is committed and never changes, so the pages agree with it), the
 * turn still open at the end, the inbox at a seq near the end. What it costs grows with the
 * distance from the end, not with the history.
 */
export class LogTail {
  /** The pages read so far, from the end back: page `k` holds seqs `length - (k + 1) × page` (or 0) … `length - k × page - 1`. */
  readonly #pages: SessionEvent[][] = []

  private constructor(
    readonly store: TailStore,
    readonly id: string,
    readonly header: SessionHeader,
    /** Events in the log when its summary was read: the end this tail reads back from. */
    readonly length: number,
    /** The queues' lengths at `length`, when the store's summary has them. */
    readonly queued: Queued | undefined,
    readonly page: number,
  ) {}

  /** The tail of session `id`, or undefined when the store has no such session. */
  static async open(store: TailStore, id: string, page: number): Promise<LogTail | undefined> {
    const summary = await store.summary(id)
    const header = summary === undefined ? undefined : await store.header(id)
    if (summary === undefined || header === undefined) return undefined
    // Read by name: a store gives `queued` only where its summary counts each queue.
    const { queued } = summary as { queued?: Queued }
    return new LogTail(store, id, header, summary.length, queued, page)
  }

  get seedLength(): number {
    return this.header.seedLength ?? 0
  }

  /** The event at `seq` (0 ≤ `seq` < `length`), reading the pages back to it. */
  async at(seq: number): Promise<SessionEvent> {
    const k = Math.floor((this.length - 1 - seq) / this.page)
    while (this.#pages.length <= k) {
      const end = this.length - this.#pages.length * this.page
      const start = Math.max(0, end - this.page)
      const read = await this.store.readEvents(this.id, start, end - start)
      if (read.length !== end - start || read[0]?.seq !== start) throw new HostError('internal-error', `The store gave ${read.length} events of session "${this.id}" from seq ${start}, not the ${end - start} it had: its log changed while it was read. Retry the request.`, { id: this.id })
      this.#pages.push(read)
    }
    return this.#pages[k]![seq - Math.max(0, this.length - (k + 1) * this.page)]!
  }

  /** The turn left open at the end (as `openTurn` finds it in the whole log): back to the last `turn/start` or `turn/end`. */
  async openTurn(): Promise<{ turn: number; seq: number } | undefined> {
    for (let seq = this.length - 1; seq >= 0; seq--) {
      const event = await this.at(seq)
      if (event.type === 'turn/end') return undefined
      if (event.type === 'turn/start') return { turn: (event.data as { turn: number }).turn, seq }
    }
    return undefined
  }

  /** The seq of the log's last inbox splice after the seed (its inbox version, as `inboxVersionOf` finds it), -1 if none: read back to it. */
  async lastSplice(): Promise<number> {
    for (let seq = this.length - 1; seq >= this.seedLength; seq--) if ((await this.at(seq)).type === 'agent/inbox/spliced') return seq
    return -1
  }

  /**
   * The inbox fold of the log through seq `upTo`, equal to folding every splice from seq 0, read
   * back only to the last point at or before `upTo + 1` where both queues were empty. That point
   * is found from the queues' lengths at the end — the store's summary, `queued`, which the store
   * writes with every batch and gives only for a summary of exactly this log's length — taken
   * back splice by splice: a splice removes at most the `removedCount` it names (fewer only in a
   * damaged log), so the lengths taken back are never below the real ones, and where they reach
   * zero the queues were empty, whatever came before. The fold from there must end with the
   * summary's lengths, and no length taken back may go below zero (a summary the log
   * contradicts). Undefined when it cannot be made this way (no `queued`, a malformed splice, a
   * contradiction): the caller folds the whole log.
   */
  async inboxAt(upTo: number): Promise<InboxFold | undefined> {
    const { queued, seedLength } = this
    // Through a seq of the seed (or none): nothing is folded yet.
    if (upTo < seedLength && upTo < this.length) return new InboxFold(seedLength)
    if (queued === undefined || upTo >= this.length) return undefined
    // Back from the end: the queues' lengths before each splice, until both are empty at or before upTo + 1.
    const lengths = { ...queued }
    let empty = this.length
    for (; empty > seedLength && (empty > upTo + 1 || lengths['next-turn'] + lengths['next-step'] > 0); empty--) {
      const splice = spliceOf(await this.at(empty - 1))
      if (splice === null) return undefined
      if (splice === undefined) continue
      lengths[splice.target] += (splice.removedCount ?? 0) - splice.inserted.length
      if (lengths[splice.target] < 0) return undefined
    }
    // On from there: the fold at upTo, checked to the end.
    const fold = new InboxFold(seedLength)
    let atUpTo = empty === upTo + 1 ? fold.snapshot() : undefined
    for (let seq = empty; seq < this.length; seq++) {
      fold.apply(await this.at(seq))
      if (seq === upTo) atUpTo = fold.snapshot()
    }
    if (fold.queues['next-turn'].length !== queued['next-turn'] || fold.queues['next-step'].length !== queued['next-step'] || atUpTo === undefined) return undefined
    return InboxFold.continuing({ nextTurn: atUpTo['next-turn'], nextStep: atUpTo['next-step'] }, seedLength)
  }
}

/** A splice of the inbox (after the seed, where a fold applies it), undefined for any other event, null for one no count can follow. */
function spliceOf(event: SessionEvent): InboxSplice | undefined | null {
  if (event.type !== 'agent/inbox/spliced') return undefined
  const { target, start, removedCount, inserted } = (event.data ?? {}) as Partial<InboxSplice>
  const count = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) >= 0
  if ((target !== 'next-turn' && target !== 'next-step') || !count(start) || (removedCount !== undefined && !count(removedCount)) || !Array.isArray(inserted)) return null
  return event.data as InboxSplice
}
