import { BosunError, ErrorCodes } from '../errors.js'
import { derivedFrom, type UserMessage } from '../session/messages.js'
import type { InboxSplice, InboxTarget } from './types.js'

/** What wrote a splice: the rules differ only in whether a new message must bring a new id. */
export type SpliceKind = 'public' | 'claim' | 'requeue' | 'move' | 'replay'

/**
 * The inbox's state in memory — its two queues and the ids it tracks — and the rules a splice
 * must keep (no id pending twice; a new message never reuses an id the session has seen). The
 * live write path (inbox.ts) and the replay of the log (replay.ts) change it only through
 * {@link apply}, so both build the same state from the same splices.
 *
 * The two queues are fields of their own, not a record of them: this object takes the place the
 * record had in the inbox, so an idle session keeps no more objects than before the split.
 */
export class InboxQueues {
  readonly #nextTurn: UserMessage[] = []
  readonly #nextStep: UserMessage[] = []
  // The collections below are made on first use: an idle session has nothing pending, returnable
  // or torn, and empty ones were ~0.6 KiB of every idle session (docs/benchmarks.md, section 6,
  // goal 2). `#seen` is not: it holds the ids of the history.
  /** Which queue holds each pending id: O(1) duplicate checks and lookups by id. */
  #where: Map<string, InboxTarget> | undefined
  /**
   * Every message id this session has seen (inserted after the seed, or delivered in a
   * `user/message`): a receipt id is unique for the life of a session, so a new message may not
   * reuse one (O(1) check; seed 003 §23: the prompt receipt is the inbox MessageId).
   */
  readonly #seen = new Set<string>()
  /**
   * Ids claimed and not (yet) delivered to a step: the only ids a requeue may put back. Rejected
   * messages stay here (a plugin may requeue them later); delivery removes them.
   */
  #returnable: Set<string> | undefined
  /**
   * Messages a replayed move took out of one queue whose insertion into the other is not in the
   * log (a crash between the move's two splices): the inbox's recoverTornMoves() finishes them.
   */
  #torn: Map<string, { message: UserMessage; to: InboxTarget }> | undefined

  /** The queue itself (mutable: for this module's callers only; the inbox hands out read-only views). */
  queue(target: InboxTarget): UserMessage[] {
    return target === 'next-turn' ? this.#nextTurn : this.#nextStep
  }

  get nextTurn(): UserMessage[] {
    return this.#nextTurn
  }

  get nextStep(): UserMessage[] {
    return this.#nextStep
  }

  get hasPending(): boolean {
    return this.#where !== undefined && this.#where.size > 0
  }

  isPending(id: string): boolean {
    return this.#where?.has(id) === true
  }

  /** Whether the session has used `id` (pending, claimed, delivered or canceled): a new message may not reuse it. */
  hasSeen(id: string): boolean {
    return this.#seen.has(id)
  }

  isReturnable(id: string): boolean {
    return this.#returnable?.has(id) === true
  }

  /** The queue holding message `id`, if it is pending. */
  find(id: string): { target: InboxTarget; index: number; message: UserMessage } | undefined {
    const target = this.#where?.get(id)
    if (target === undefined) return undefined
    const queue = this.queue(target)
    const index = queue.findIndex((message) => message.id === id)
    return { target, index, message: queue[index]! }
  }

  /** Applies a checked splice; a `claim` makes what it removes returnable. Returns the removed messages. */
  apply(splice: InboxSplice, claim: boolean): UserMessage[] {
    const queue = this.queue(splice.target)
    const inserted = splice.inserted
    // A turn's two splices are an append and a removal: neither needs the spread of a general
    // splice (an arguments copy of `inserted`), and an append needs no removed array from splice.
    const removed = inserted.length === 0
      ? queue.splice(splice.start, splice.removedCount ?? 0)
      : splice.removedCount === undefined && splice.start === queue.length
        ? (pushAll(queue, inserted), [])
        : queue.splice(splice.start, splice.removedCount ?? 0, ...inserted)
    for (const message of removed) {
      this.#where!.delete(message.id) // a removed message was pending: #where exists
      if (claim) (this.#returnable ??= new Set()).add(message.id)
    }
    if (inserted.length === 0) return removed
    const where = (this.#where ??= new Map())
    for (const message of inserted) {
      where.set(message.id, splice.target)
      this.#seen.add(message.id)
      this.#returnable?.delete(message.id)
    }
    return removed
  }

  /** A message reached a step: its id is seen, and it, and whatever it was derived from, are no longer returnable. */
  delivered(message: UserMessage): void {
    this.#seen.add(message.id)
    const returnable = this.#returnable
    if (returnable === undefined || returnable.size === 0) return
    returnable.delete(message.id)
    for (const id of derivedFrom(message)) returnable.delete(id)
  }

  /**
   * After the change no id appears twice across both queues, and (for a new message, not a
   * replayed or requeued one) the id was never seen in this session. Assumes the splice's bounds
   * are valid (normalised by the live path, checked by replay).
   */
  checkInserted(splice: InboxSplice, kind: SpliceKind): void {
    const queue = this.queue(splice.target)
    const removedCount = splice.removedCount ?? 0
    const inserted = splice.inserted
    // Sets only when there is something to compare (an edit, several insertions): a turn's splices
    // insert one message or remove one, and need none.
    const leaving = removedCount === 0 ? undefined : new Set<string>()
    if (leaving !== undefined) for (let i = splice.start; i < splice.start + removedCount; i++) leaving.add(queue[i]!.id)
    const seen = inserted.length === 1 ? undefined : new Set<string>()
    for (const message of inserted) {
      const id = (message as UserMessage | undefined)?.id
      if (typeof id !== 'string') throw new BosunError(ErrorCodes.INVALID_SPLICE, 'Inserted item is not a message.')
      if (seen?.has(id) || (this.#where?.has(id) && !leaving?.has(id))) {
        throw new BosunError(ErrorCodes.DUPLICATE_MESSAGE_ID, `Message "${id}" is already pending.`, { details: { id } })
      }
      // An edit keeps its id (it leaves and enters in one splice); a requeue is checked by requeue().
      if (kind === 'public' && this.#seen.has(id) && !leaving?.has(id)) throw idAlreadyUsed(id)
      seen?.add(id)
    }
  }

  /** Replay: a move's removal whose insertion is not (yet) in the log. */
  noteTorn(message: UserMessage, to: InboxTarget): void {
    ;(this.#torn ??= new Map()).set(message.id, { message, to })
  }

  /** Replay: an insertion finished whatever torn move took the same message. */
  untear(message: UserMessage): void {
    this.#torn?.delete(message.id)
  }

  /** The moves replay found torn (undefined when there are none). */
  get torn(): ReadonlyMap<string, { message: UserMessage; to: InboxTarget }> | undefined {
    return this.#torn
  }

  forgetTorn(): void {
    this.#torn = undefined
  }

  /** After replay: drops the collections it made for messages that have since left them (an idle session keeps none). */
  dropEmpty(): void {
    if (this.#where?.size === 0) this.#where = undefined
    if (this.#returnable?.size === 0) this.#returnable = undefined
    if (this.#torn?.size === 0) this.#torn = undefined
  }
}

/** A new message reusing an id the session has seen (the receipt rule). */
export function idAlreadyUsed(id: string): BosunError {
  return new BosunError(
    ErrorCodes.DUPLICATE_MESSAGE_ID,
    `Message id "${id}" was already used in this session: an id is a receipt, unique for the life of the session. ` +
      'Send new input with a new id (omit it to get a UUID); to put a claimed message back, use inbox.requeue().',
    { details: { id } },
  )
}

function pushAll(queue: UserMessage[], messages: readonly UserMessage[]): void {
  for (let i = 0; i < messages.length; i++) queue.push(messages[i]!)
}
