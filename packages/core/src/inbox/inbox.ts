import { BosunError, ErrorCodes, invalidArgument } from '../errors.js'
import { appendOwnedData, type Session } from '../session/session.js'
import { createUserMessage, toUserMessage, type MessageInput, type UserMessage } from '../session/messages.js'
import { InboxQueues, type SpliceKind } from './queues.js'
import { replayInbox } from './replay.js'
import { checkTarget, type InboxNotifications, type InboxSplice, type InboxTarget } from './types.js'

const silent: InboxNotifications = { inserted() {}, discarded() {}, claimed() {} }
/** The `inserted` of every removal the inbox logs: frozen, so one array serves them all. */
const NONE: readonly UserMessage[] = Object.freeze([])

/**
 * The agent's durable pending work: a replay-once projection of the `agent/inbox/spliced`
 * events of its session (replay.ts rebuilds it; queues.ts holds it and its rules). Every change
 * goes through one write path, here, that appends the splice first and mutates memory second, so
 * a synchronous session observer sees the pre-state.
 */
export class Inbox {
  readonly #queues = new InboxQueues()
  /** True while a splice event is being appended (observers run, memory not yet changed). */
  #appending = false
  /** Writes made by session observers during an append, run once that splice is applied. Made on first use. */
  #deferred: (() => void)[] | undefined

  constructor(
    private readonly session: Session,
    private readonly notifications: InboxNotifications = silent,
  ) {
    replayInbox(session, this.#queues)
    // What the loop delivers to a step is seen, and no longer returnable (before any observer runs).
    session.project((event) => {
      if (event.type === 'user/message') this.#queues.delivered(event.data as UserMessage)
    })
  }

  /** Messages waiting for their own turn, oldest first. Read-only. */
  get nextTurn(): readonly UserMessage[] {
    return this.#queues.nextTurn
  }

  /** Messages waiting for the next step boundary, oldest first. Read-only. */
  get nextStep(): readonly UserMessage[] {
    return this.#queues.nextStep
  }

  get hasPending(): boolean {
    return this.#queues.hasPending
  }

  /**
   * Whether message `id` was used in this session — pending, claimed, delivered or canceled — so
   * that a new message may not reuse it (DUPLICATE_MESSAGE_ID).
   */
  hasSeen(id: string): boolean {
    return this.#queues.hasSeen(id)
  }

  /** The queue holding message `id`, if it is pending. */
  find(id: string): { target: InboxTarget; index: number; message: UserMessage } | undefined {
    return this.#queues.find(id)
  }

  /**
   * The one public write path. Coordinates are normalised exactly like `Array.prototype.splice`
   * (truncated, NaN → 0, negative from the end, clamped). Removed messages are recorded as
   * `outcome: 'canceled'`. A no-op writes nothing and returns `[]`.
   */
  splice(target: InboxTarget, start: number, deleteCount: number, inserted: readonly MessageInput[] = []): UserMessage[] {
    checkTarget(target, 'Inbox target')
    if (typeof start !== 'number') throw invalidArgument(`Inbox splice "start" must be a number, got ${typeof start}.`)
    if (typeof deleteCount !== 'number') {
      throw invalidArgument(`Inbox splice "deleteCount" must be a number, got ${typeof deleteCount}.`)
    }
    if (!Array.isArray(inserted)) throw invalidArgument('Inbox splice "inserted" must be an array of messages.')
    const messages = inserted.map((input, i) => toUserMessage(input, `inserted[${i}]`))
    if (this.#appending) return this.#defer(() => this.#mutate(target, start, deleteCount, messages, true), [])
    return this.#mutate(target, start, deleteCount, messages, true)
  }

  /**
   * Puts claimed messages back (a plugin that rejected them and admits them later, or crash
   * recovery): the one way an id the session has seen enters a queue again. Each message must
   * have been claimed and never delivered to a step (else DUPLICATE_MESSAGE_ID). Logged as a plain
   * insertion splice; coordinates are normalised like {@link splice}.
   */
  requeue(target: InboxTarget, start: number, messages: readonly UserMessage[]): UserMessage[] {
    checkTarget(target, 'Inbox target')
    if (typeof start !== 'number') throw invalidArgument(`Inbox requeue "start" must be a number, got ${typeof start}.`)
    if (!Array.isArray(messages)) throw invalidArgument('Inbox requeue "messages" must be an array of messages.')
    const checked = messages.map((input, i) => toUserMessage(input, `requeued[${i}]`))
    for (const message of checked) {
      if (!this.#queues.isReturnable(message.id)) {
        throw new BosunError(
          ErrorCodes.DUPLICATE_MESSAGE_ID,
          `Cannot requeue message "${message.id}": only a message that was claimed and never reached a step can be put back` +
            (this.#queues.isPending(message.id) ? ' (it is pending).' : '.'),
          { details: { id: message.id } },
        )
      }
    }
    const run = () => {
      this.#mutate(target, start, 0, checked, true, 'requeue')
    }
    if (this.#appending) return this.#defer(run, [...checked])
    run()
    return [...checked]
  }

  /**
   * Moves a pending message to the tail of the other queue (e.g. a queued follow-up promoted to
   * steering), keeping its id: neither a claim nor a cancel. Logged as two splices appended back
   * to back — a pure removal with `outcome: 'moved'`, then the plain insertion into `target` —
   * so every fold that replays splices mechanically sees the queues right. Notifies `inserted`
   * for `target` (as a requeue does), never `discarded`. A no-op when it is already in `target`.
   * Fails with MESSAGE_NOT_PENDING if a claim already took it: the claim wins the race.
   */
  move(id: string, target: InboxTarget): UserMessage {
    checkTarget(target, 'Inbox target')
    const found = this.#require(id, 'move')
    const run = () => {
      const now = this.#require(id, 'move')
      if (now.target === target) return
      // No deferred write runs between the halves: the pair stays adjacent in the log.
      this.#mutate(now.target, now.index, 1, NONE, false, 'move', false)
      this.#mutate(target, this.#queues.queue(target).length, 0, [now.message], false, 'move')
    }
    if (this.#appending) return this.#defer(run, found.message)
    run()
    return found.message
  }

  /**
   * Recovery: finishes moves a crash tore between their two splices (the removal is in the log,
   * the insertion is not) by appending the insertion, so a moved message is never lost. Returns
   * the messages put back; a no-op on an untorn log.
   */
  recoverTornMoves(): UserMessage[] {
    const recovered: UserMessage[] = []
    const torn = this.#queues.torn
    if (torn === undefined) return recovered
    for (const { message, to } of torn.values()) {
      if (this.#queues.isPending(message.id)) continue
      this.#mutate(to, this.#queues.queue(to).length, 0, [message], false, 'move')
      recovered.push(message)
    }
    this.#queues.forgetTorn()
    return recovered
  }

  /**
   * Takes the work of one step: all of `next-step`, then — only for `next-turn` — the head of
   * `next-turn`. Records pure deletions (no outcome) and notifies `claimed` for each message.
   */
  claim(target: InboxTarget, turn: number): UserMessage[] {
    checkTarget(target, 'Inbox claim target')
    if (this.#appending) {
      throw new BosunError(ErrorCodes.INBOX_REENTRANT, 'Inbox claim() cannot run inside a session observer while a splice is being logged.')
    }
    // An empty queue is a no-op splice (nothing logged): not built at all. A turn claims one
    // message, with `next-step` empty.
    // Whether a next-turn message is taken is decided before the next-step half is logged: a send
    // from an observer of that splice (applied right after it) is not part of this claim — one sent
    // after an abort from there was taken by the aborted turn and never delivered.
    // (An observer that cleared the queue meanwhile leaves nothing to take.)
    const head = target === 'next-turn' ? this.nextTurn[0] : undefined
    const claimed = this.nextStep.length === 0 ? [] : this.#mutate('next-step', 0, this.nextStep.length, NONE, false, 'claim')
    if (head !== undefined && this.nextTurn[0] === head) claimed.push(this.#mutate('next-turn', 0, 1, NONE, false, 'claim')[0]!)
    for (const message of claimed) this.#notify('claimed', message, turn)
    return claimed
  }

  /** Cancels everything pending: `next-step` first, then `next-turn`, each its own splice. */
  clear(): UserMessage[] {
    if (this.#appending) return this.#defer(() => this.clear(), [])
    return [
      ...this.#mutate('next-step', 0, this.nextStep.length, NONE, true),
      ...this.#mutate('next-turn', 0, this.nextTurn.length, NONE, true),
    ]
  }

  /**
   * Replaces a pending message in place (an edit), keeping its position. Text keeps the message's
   * id and source (the id is the sender's receipt); a UserMessage is used as given. Fails with
   * MESSAGE_NOT_PENDING if a claim already took the message: the claim wins the race.
   */
  replace(id: string, input: MessageInput): UserMessage {
    const found = this.#require(id, 'edit')
    const message =
      typeof input === 'string' ? createUserMessage(input, { id, source: found.message.source }) : toUserMessage(input, 'replacement')
    const run = () => {
      const now = this.#require(id, 'edit')
      this.#mutate(now.target, now.index, 1, [message], true)
    }
    if (this.#appending) return this.#defer(run, message)
    run()
    return message
  }

  /** Removes (cancels) a pending message. Fails with MESSAGE_NOT_PENDING if it is gone. */
  remove(id: string): UserMessage {
    const found = this.#require(id, 'remove')
    const run = () => {
      const now = this.#require(id, 'remove')
      this.#mutate(now.target, now.index, 1, NONE, true)
    }
    if (this.#appending) return this.#defer(run, found.message)
    run()
    return found.message
  }

  /**
   * A write from a session observer while a splice is being logged would apply to the queues
   * before the splice itself does, and the log would no longer replay to memory. It runs instead
   * right after that splice is applied, against the queues as they are then; its errors are
   * reported (the caller has already returned).
   */
  #defer<T>(run: () => void, result: T): T {
    ;(this.#deferred ??= []).push(run)
    return result
  }

  #drainDeferred(): void {
    const deferred = this.#deferred
    if (deferred === undefined) return
    while (deferred.length > 0 && !this.#appending) {
      const run = deferred.shift()!
      try {
        run()
      } catch (error) {
        this.session.reportError(error, 'inbox write deferred from a session observer')
      }
    }
  }

  #require(id: string, action: string) {
    if (typeof id !== 'string') throw invalidArgument(`Message id must be a string, got ${typeof id}.`)
    const found = this.find(id)
    if (!found) {
      throw new BosunError(
        ErrorCodes.MESSAGE_NOT_PENDING,
        `Cannot ${action} message "${id}": it is not pending (already claimed, canceled or never queued).`,
        { details: { id } },
      )
    }
    return found
  }

  #mutate(
    target: InboxTarget,
    start: number,
    deleteCount: number,
    inserted: readonly UserMessage[],
    discardRemoved: boolean,
    kind: Exclude<SpliceKind, 'replay'> = 'public',
    drain = true,
  ): UserMessage[] {
    const queue = this.#queues.queue(target)
    const truncatedStart = Math.trunc(start)
    const offset = Number.isNaN(truncatedStart) ? 0 : truncatedStart
    // `|| 0` turns -0 (from a start in (-1, 0]) into 0, so the log and its JSON copy agree.
    const actualStart = (offset < 0 ? Math.max(queue.length + offset, 0) : Math.min(offset, queue.length)) || 0
    const truncatedCount = Math.trunc(deleteCount)
    const actualCount = Math.min(Math.max(Number.isNaN(truncatedCount) ? 0 : truncatedCount, 0), queue.length - actualStart)
    if (actualCount === 0 && inserted.length === 0) return []
    // Built in the logged key order without spreads, and appended as owned data: the numbers are
    // normalised above, the messages are frozen checked messages, and the array is this inbox's own.
    const outcome = actualCount === 0 ? undefined : kind === 'move' ? 'moved' : discardRemoved ? 'canceled' : undefined
    // A removal logs the shared frozen empty array (no array and no freeze per removal).
    const frozen = inserted.length === 0 ? NONE : Object.freeze(inserted)
    const splice: InboxSplice = actualCount === 0
      ? { target, start: actualStart, inserted: frozen }
      : outcome === undefined
        ? { target, start: actualStart, removedCount: actualCount, inserted: frozen }
        : { target, start: actualStart, removedCount: actualCount, inserted: frozen, outcome }
    // The core's own splice: its target was checked by the public method that called this (or is
    // a constant, or came from the pending ids), and its coordinates were normalised just above, so
    // only what the caller's messages could break is checked. Replay checks everything (replay.ts).
    if (frozen.length > 0) this.#queues.checkInserted(splice, kind)
    this.#appending = true
    try {
      appendOwnedData(this.session, 'agent/inbox/spliced', splice)
    } finally {
      this.#appending = false
    }
    const removed = this.#queues.apply(splice, kind === 'claim')
    if (discardRemoved) for (const message of removed) this.#notify('discarded', message, target)
    for (const message of splice.inserted) this.#notify('inserted', message, target)
    if (drain) this.#drainDeferred()
    return removed
  }

  /** One notification, contained (no closure per message: a turn makes two). */
  #notify(kind: 'inserted' | 'discarded', message: UserMessage, target: InboxTarget): void
  #notify(kind: 'claimed', message: UserMessage, turn: number): void
  #notify(kind: 'inserted' | 'discarded' | 'claimed', message: UserMessage, where: InboxTarget | number): void {
    try {
      if (kind === 'claimed') this.notifications.claimed(message, where as number)
      else this.notifications[kind](message, where as InboxTarget)
    } catch (error) {
      this.session.reportError(error, 'inbox notification')
    }
  }
}
