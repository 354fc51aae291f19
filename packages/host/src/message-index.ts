import { derivedFrom, type Agent, type InboxSplice, type InboxTarget, type SessionEvent, type UserMessage } from '@bosun/core'
import { claimedStatus, messageState, type MessageStatus } from './log.js'

/**
 * A live session's message status from its {@link MessageIndex}, built on the first request
 * (one pass over the log) and kept by the session from then on (released with it); the whole
 * log's fold only for a log the index could not read, which answers as it did before.
 */
export function liveMessageStatus(live: { agent: Agent; messages?: MessageIndex }, messageId: string): MessageStatus | undefined {
  const { session } = live.agent
  const seedLength = session.header.seedLength ?? 0
  const index = (live.messages ??= MessageIndex.build(session, seedLength))
  index.catchUp(session)
  return index.broken ? messageState(session.events, messageId, seedLength) : index.status(messageId)
}

/** The part of a session the index reads: its length and its events by seq. */
interface EventSource {
  readonly length: number
  eventAt(seq: number): SessionEvent | undefined
}

/** One turn after the seed, shared by the messages it claimed. */
interface TurnRef {
  readonly turn: number
  end?: string
}

/** What the index keeps of one admitted message: a few fields, whatever its history. */
interface Entry {
  readonly admittedSeq: number
  readonly lane: InboxTarget
  /** The latest turn whose `stepped` or `unstepped` (`foldConsumedWork`) names the message, and which. */
  settled?: { ref: TurnRef; stepped: boolean; unstepped: boolean }
  /** Named in `foldConsumedWork`'s `canceled`. */
  canceled: boolean
}

/**
 * `GET /v1/sessions/:id/messages/:messageId` for a live session, kept as events are appended, so
 * an answer costs the message's queue, not the log: the same answer {@link messageState} folds
 * from the whole log (a property test holds them equal), from the same events.
 *
 * Its own fold, not the agent's inbox or a core projection: `messageState` answers from the log
 * (admission = the first splice after the seed that inserted the id; claims, steps and turn ends
 * as `foldConsumedWork` reads them; the first `agent/pre-step/rejected` of a turn anywhere in
 * the log), and the core keeps none of that per message — its inbox holds only what is queued
 * now, and `foldConsumedWork` is a whole-log fold. What it keeps: per admitted message an
 * {@link Entry}; the queued ids; the open turn's claimed ids; the first reject of each turn that
 * had one. Nothing per event.
 *
 * Fed by the live session's subscription ({@link apply}) from the seq it was built to; a request
 * first applies anything the subscription has not (yet) delivered ({@link catchUp}), so it is
 * exact even for a session the host stopped following mid-request.
 */
export class MessageIndex {
  readonly #entries = new Map<string, Entry>()
  readonly #queues: Record<InboxTarget, string[]> = { 'next-turn': [], 'next-step': [] }
  readonly #rejects = new Map<number, { by: string; metadata: unknown }>()
  #current: { ref: TurnRef; claimed: Set<string> } | undefined
  /** The next seq to apply: every event before it is folded in. */
  #next = 0
  /** An event the fold could not read (a damaged log): the caller folds the whole log instead, as before. */
  #broken = false

  constructor(readonly seedLength = 0) {}

  /** The index of `source`'s log so far: one pass over it. */
  static build(source: EventSource, seedLength = 0): MessageIndex {
    const index = new MessageIndex(seedLength)
    index.catchUp(source)
    return index
  }

  get broken(): boolean {
    return this.#broken
  }

  /** Folds in the events of `source` not applied yet (none, when the subscription is current). */
  catchUp(source: EventSource): void {
    for (let seq = this.#next; seq < source.length && !this.#broken; seq++) {
      const event = source.eventAt(seq)
      if (event?.seq !== seq) this.#broken = true
      else this.apply(event)
    }
  }

  /** Folds in one appended event; an event already applied, or past a gap, is left to {@link catchUp}. */
  apply(event: SessionEvent): void {
    if (this.#broken || event.seq !== this.#next) return
    try {
      this.#fold(event)
      this.#next++
    } catch {
      this.#broken = true
    }
  }

  #fold(event: SessionEvent): void {
    // `messageState` finds a turn's reject anywhere in the log, the seed too: the first one counts.
    if (event.type === 'agent/pre-step/rejected') {
      const { turn, by, metadata } = event.data as { turn: number; by: string; metadata: unknown }
      if (!this.#rejects.has(turn)) this.#rejects.set(turn, { by, metadata })
      return
    }
    if (event.seq < this.seedLength) return
    const current = this.#current
    switch (event.type) {
      case 'turn/start':
        // A turn started over an open one drops that turn's claims, as foldConsumedWork does.
        this.#current = { ref: { turn: (event.data as { turn: number }).turn }, claimed: new Set() }
        break
      case 'agent/inbox/spliced': {
        const splice = event.data as InboxSplice
        const inserted = splice.inserted.map((m) => m.id)
        const removed = this.#queues[splice.target].splice(splice.start, splice.removedCount ?? 0, ...inserted)
        for (const id of inserted) if (!this.#entries.has(id)) this.#entries.set(id, { admittedSeq: event.seq, lane: splice.target, canceled: false })
        if (splice.outcome === 'moved') break
        for (const id of removed) {
          if (splice.outcome === 'canceled') {
            if (!inserted.includes(id)) this.#entries.get(id)!.canceled = true // an edit keeps its id
          } else current?.claimed.add(id) // a pure deletion inside a turn is a claim
        }
        break
      }
      case 'user/message': {
        if (!current) break
        const message = event.data as UserMessage
        // A message a pre-step derived from claimed input delivers that input.
        for (const id of [message.id, ...derivedFrom(message)]) if (current.claimed.delete(id)) this.#settle(id, current.ref, 'stepped')
        break
      }
      case 'turn/end':
        if (!current) break
        for (const id of current.claimed) this.#settle(id, current.ref, 'unstepped')
        current.ref.end = (event.data as { reason: { kind: string } }).reason.kind
        this.#current = undefined
        break
    }
  }

  #settle(id: string, ref: TurnRef, list: 'stepped' | 'unstepped'): void {
    const entry = this.#entries.get(id)!
    if (entry.settled?.ref !== ref) entry.settled = { ref, stepped: false, unstepped: false }
    entry.settled[list] = true
  }

  /** The message's status as {@link messageState} gives it for the log folded so far; undefined if never admitted. */
  status(messageId: string): MessageStatus | undefined {
    const entry = this.#entries.get(messageId)
    if (!entry) return undefined
    const base = { messageId, admittedSeq: entry.admittedSeq, lane: entry.lane }
    for (const lane of ['next-turn', 'next-step'] as const) {
      const position = this.#queues[lane].indexOf(messageId)
      if (position >= 0) return { ...base, state: 'queued', lane, position }
    }
    // The open turn is the latest: delivered in it, else claimed by it and not delivered yet.
    const { settled } = entry
    const current = this.#current
    if (current !== undefined && settled?.ref === current.ref && settled.stepped) return claimedStatus(base, current.ref, true)
    if (current?.claimed.has(messageId)) return claimedStatus(base, { turn: current.ref.turn }, false)
    if (settled !== undefined) {
      const rejected = settled.stepped ? undefined : this.#rejects.get(settled.ref.turn)
      if (rejected) return { ...base, state: 'rejected', turn: settled.ref.turn, by: rejected.by, metadata: rejected.metadata }
      return claimedStatus(base, settled.ref, settled.stepped)
    }
    if (entry.canceled) return { ...base, state: 'canceled' }
    return undefined
  }
}
