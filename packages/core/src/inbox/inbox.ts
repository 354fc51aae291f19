import { BosunError, ErrorCodes, invalidArgument } from '../errors.js'
import { appendOwnedData, type Session } from '../session/session.js'
import { createUserMessage, derivedFrom, toUserMessage, type MessageInput, type UserMessage } from '../session/messages.js'
import { INBOX_TARGETS, otherTarget, type InboxNotifications, type InboxSplice, type InboxTarget } from './types.js'

const silent: InboxNotifications = { inserted() {}, discarded() {}, claimed() {} }
/** The `inserted` of every removal the inbox logs: frozen, so one array serves them all. */
const NONE: readonly UserMessage[] = Object.freeze([])

/**
 * The agent's durable pending work: a replay-once projection of the `agent/inbox/spliced`
 * events of its session. Every change goes through one write path that appends the splice
 * first and mutates memory second, so a synchronous session observer sees the pre-state.
 */
export class Inbox {
  readonly #state: Record<InboxTarget, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  // The collections below are made on first use: an idle session has nothing pending, returnable,
  // torn or deferred, and empty ones were ~0.6 KiB of every idle session (docs/benchmarks.md,
  // section 6, goal 2). `#seen` is not: it holds the ids of the history.
  /** Which queue holds each pending id: O(1) duplicate checks and lookups by id. */
  #where: Map<string, InboxTarget> | undefined
  /**
   * Every message id this session has seen (inserted after the seed, or delivered in a
   * `user/message`): a receipt id is unique for the life of a session, so a new message may not
   * reuse one (O(1) check; seed 001, "id 是回执").
   */
  readonly #seen = new Set<string>()
  /**
   * Ids claimed and not (yet) delivered to a step: the only ids {@link requeue} may put back.
   * Rejected messages stay here (a plugin may requeue them later); delivery removes them.
   */
  #returnable: Set<string> | undefined
  /**
   * Messages a replayed move took out of one queue whose insertion into the other is not in the
   * log (a crash between the move's two splices): {@link recoverTornMoves} finishes them.
   */
  #torn: Map<string, { message: UserMessage; to: InboxTarget }> | undefined
  /** True while a splice event is being appended (observers run, memory not yet changed). */
  #appending = false
  /** Writes made by session observers during an append, run once that splice is applied. */
  #deferred: (() => void)[] | undefined

  constructor(
    private readonly session: Session,
    private readonly notifications: InboxNotifications = silent,
  ) {
    const events = session.events
    const seedLength = session.header.seedLength ?? 0
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!
      if (event.type === 'user/message') {
        this.#delivered(event.data as UserMessage)
        continue
      }
      if (event.type !== 'agent/inbox/spliced' || i < seedLength) continue
      try {
        const data = event.data as InboxSplice
        if (!Array.isArray(data.inserted)) throw new Error('"inserted" is not an array')
        if (data.outcome !== undefined && (!data.removedCount || (data.outcome !== 'canceled' && (data.outcome !== 'moved' || data.inserted.length > 0)))) {
          throw new Error(`"outcome" must be absent, or "canceled" on a removal, or "moved" on a pure removal, got ${JSON.stringify(data.outcome)}`)
        }
        const splice = { ...data, inserted: data.inserted.map((m, i) => toUserMessage(m, `inserted[${i}]`)) }
        // Replay checks what the queues require, not the receipt rule: the log is what happened.
        this.#validate(splice, 'replay')
        const removed = this.#apply(splice, data.outcome === undefined && (data.removedCount ?? 0) > 0)
        if (this.#torn !== undefined) for (const message of splice.inserted) this.#torn.delete(message.id)
        if (data.outcome === 'moved') for (const message of removed) (this.#torn ??= new Map()).set(message.id, { message, to: otherTarget(data.target) })
      } catch (error) {
        throw new BosunError(
          ErrorCodes.INVALID_PERSISTED_SPLICE,
          `Invalid persisted inbox splice at session seq ${event.seq} of session "${session.header.id}": ${(error as Error).message}`,
          { cause: error, details: { seq: event.seq, sessionId: session.header.id } },
        )
      }
    }
    // Replay made these for messages that have since left them: an idle session keeps none.
    if (this.#where?.size === 0) this.#where = undefined
    if (this.#returnable?.size === 0) this.#returnable = undefined
    if (this.#torn?.size === 0) this.#torn = undefined
    // What the loop delivers to a step is seen, and no longer returnable (before any observer runs).
    session.project((event) => {
      if (event.type === 'user/message') this.#delivered(event.data as UserMessage)
    })
  }

  /** Messages waiting for their own turn, oldest first. Read-only. */
  get nextTurn(): readonly UserMessage[] {
    return this.#state['next-turn']
  }

  /** Messages waiting for the next step boundary, oldest first. Read-only. */
  get nextStep(): readonly UserMessage[] {
    return this.#state['next-step']
  }

  get hasPending(): boolean {
    return this.#where !== undefined && this.#where.size > 0
  }

  /** The queue holding message `id`, if it is pending. */
  find(id: string): { target: InboxTarget; index: number; message: UserMessage } | undefined {
    const target = this.#where?.get(id)
    if (target === undefined) return undefined
    const index = this.#state[target].findIndex((message) => message.id === id)
    return { target, index, message: this.#state[target][index]! }
  }

  /**
   * The one public write path. Coordinates are normalised exactly like `Array.prototype.splice`
   * (truncated, NaN → 0, negative from the end, clamped). Removed messages are recorded as
   * `outcome: 'canceled'`. A no-op writes nothing and returns `[]`.
   */
  splice(target: InboxTarget, start: number, deleteCount: number, inserted: readonly MessageInput[] = []): UserMessage[] {
    if (!INBOX_TARGETS.includes(target)) {
      throw invalidArgument(`Inbox target must be "next-turn" or "next-step", got ${JSON.stringify(target)}.`)
    }
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
    if (!INBOX_TARGETS.includes(target)) {
      throw invalidArgument(`Inbox target must be "next-turn" or "next-step", got ${JSON.stringify(target)}.`)
    }
    if (typeof start !== 'number') throw invalidArgument(`Inbox requeue "start" must be a number, got ${typeof start}.`)
    if (!Array.isArray(messages)) throw invalidArgument('Inbox requeue "messages" must be an array of messages.')
    const checked = messages.map((input, i) => toUserMessage(input, `requeued[${i}]`))
    for (const message of checked) {
      if (this.#returnable?.has(message.id) !== true) {
        throw new BosunError(
          ErrorCodes.DUPLICATE_MESSAGE_ID,
          `Cannot requeue message "${message.id}": only a message that was claimed and never reached a step can be put back` +
            (this.#where?.has(message.id) ? ' (it is pending).' : '.'),
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
    if (!INBOX_TARGETS.includes(target)) {
      throw invalidArgument(`Inbox target must be "next-turn" or "next-step", got ${JSON.stringify(target)}.`)
    }
    const found = this.#require(id, 'move')
    const run = () => {
      const now = this.#require(id, 'move')
      if (now.target === target) return
      // No deferred write runs between the halves: the pair stays adjacent in the log.
      this.#mutate(now.target, now.index, 1, NONE, false, 'move', false)
      this.#mutate(target, this.#state[target].length, 0, [now.message], false, 'move')
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
    if (this.#torn === undefined) return recovered
    for (const { message, to } of this.#torn.values()) {
      if (this.#where?.has(message.id)) continue
      this.#mutate(to, this.#state[to].length, 0, [message], false, 'move')
      recovered.push(message)
    }
    this.#torn = undefined
    return recovered
  }

  /**
   * Takes the work of one step: all of `next-step`, then — only for `next-turn` — the head of
   * `next-turn`. Records pure deletions (no outcome) and notifies `claimed` for each message.
   */
  claim(target: InboxTarget, turn: number): UserMessage[] {
    if (!INBOX_TARGETS.includes(target)) {
      throw invalidArgument(`Inbox claim target must be "next-turn" or "next-step", got ${JSON.stringify(target)}.`)
    }
    if (this.#appending) {
      throw new BosunError(ErrorCodes.INBOX_REENTRANT, 'Inbox claim() cannot run inside a session observer while a splice is being logged.')
    }
    // An empty queue is a no-op splice (nothing logged): not built at all. A turn claims one
    // message, with `next-step` empty.
    const claimed = this.nextStep.length === 0 ? [] : this.#mutate('next-step', 0, this.nextStep.length, NONE, false, 'claim')
    if (target === 'next-turn' && this.nextTurn.length > 0) claimed.push(this.#mutate('next-turn', 0, 1, NONE, false, 'claim')[0]!)
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
    kind: 'public' | 'claim' | 'requeue' | 'move' = 'public',
    drain = true,
  ): UserMessage[] {
    const queue = this.#state[target]
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
    // a constant, or came from #where), and its coordinates were normalised just above, so only
    // what the caller's messages could break is checked. Replay checks everything (#validate).
    if (frozen.length > 0) this.#checkInserted(splice, kind)
    this.#appending = true
    try {
      appendOwnedData(this.session, 'agent/inbox/spliced', splice)
    } finally {
      this.#appending = false
    }
    const removed = this.#apply(splice, kind === 'claim')
    if (discardRemoved) for (const message of removed) this.#notify('discarded', message, target)
    for (const message of splice.inserted) this.#notify('inserted', message, target)
    if (drain) this.#drainDeferred()
    return removed
  }

  #apply(splice: InboxSplice, claim: boolean): UserMessage[] {
    const queue = this.#state[splice.target]
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
  #delivered(message: UserMessage): void {
    this.#seen.add(message.id)
    const returnable = this.#returnable
    if (returnable === undefined || returnable.size === 0) return
    returnable.delete(message.id)
    for (const id of derivedFrom(message)) returnable.delete(id)
  }

  /** A persisted splice: its target and bounds, then its messages ({@link #checkInserted}). */
  #validate(splice: InboxSplice, kind: 'replay'): void {
    if (!INBOX_TARGETS.includes(splice.target)) {
      throw new BosunError(ErrorCodes.INVALID_SPLICE, `Unknown inbox target ${JSON.stringify(splice.target)}.`)
    }
    const queue = this.#state[splice.target]
    const removedCount = splice.removedCount ?? 0
    if (
      !Number.isSafeInteger(splice.start) || splice.start < 0 || splice.start > queue.length ||
      !Number.isSafeInteger(removedCount) || removedCount < 0 || splice.start + removedCount > queue.length ||
      !Array.isArray(splice.inserted)
    ) {
      throw new BosunError(
        ErrorCodes.INVALID_SPLICE,
        `Invalid inbox splice: start ${splice.start}, removedCount ${removedCount} on a ${splice.target} queue of ${queue.length}.`,
      )
    }
    if (splice.inserted.length > 0) this.#checkInserted(splice, kind)
  }

  /**
   * After the change no id appears twice across both queues, and (for a new message, not a
   * replayed or requeued one) the id was never seen in this session. The splice's bounds are valid.
   */
  #checkInserted(splice: InboxSplice, kind: 'public' | 'claim' | 'requeue' | 'move' | 'replay'): void {
    const queue = this.#state[splice.target]
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
      if (kind === 'public' && this.#seen.has(id) && !leaving?.has(id)) {
        throw new BosunError(
          ErrorCodes.DUPLICATE_MESSAGE_ID,
          `Message id "${id}" was already used in this session: an id is a receipt, unique for the life of the session. ` +
            'Send new input with a new id (omit it to get a UUID); to put a claimed message back, use inbox.requeue().',
          { details: { id } },
        )
      }
      seen?.add(id)
    }
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

function pushAll(queue: UserMessage[], messages: readonly UserMessage[]): void {
  for (let i = 0; i < messages.length; i++) queue.push(messages[i]!)
}
