import { foldConsumedWork, type InboxSplice, type InboxTarget, type SessionEvent, type UserMessage } from '@bosun/core'

type Lane = InboxTarget

export interface InboxSnapshot {
  'next-turn': UserMessage[]
  'next-step': UserMessage[]
}

/**
 * Folds the inbox splices of a log (after the seed) into the queues they leave: the host's one
 * inbox fold (snapshots, the session and AI SDK streams, ACP prompts).
 */
export class InboxFold {
  readonly queues: InboxSnapshot = { 'next-turn': [], 'next-step': [] }
  constructor(readonly seedLength = 0) {}
  /** Applies one event: for a splice, the messages it removed (truthy, maybe empty); else undefined. */
  apply(event: SessionEvent): UserMessage[] | undefined {
    if (event.type !== 'agent/inbox/spliced' || event.seq < this.seedLength) return undefined
    const splice = event.data as InboxSplice
    return this.queues[splice.target].splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
  }
  /**
   * A fold that continues from the queues as they are now: at the tail of a live session's log
   * the agent's inbox is the fold of everything before (a splice is appended as the inbox changes),
   * so a follower starting there need not fold the log from seq 0.
   */
  static continuing(queues: { readonly nextTurn: readonly UserMessage[]; readonly nextStep: readonly UserMessage[] }, seedLength = 0): InboxFold {
    const fold = new InboxFold(seedLength)
    fold.queues['next-turn'].push(...queues.nextTurn)
    fold.queues['next-step'].push(...queues.nextStep)
    return fold
  }

  snapshot(): InboxSnapshot {
    return { 'next-turn': [...this.queues['next-turn']], 'next-step': [...this.queues['next-step']] }
  }
}

export function foldInbox(events: readonly SessionEvent[], seedLength = 0): InboxSnapshot {
  const fold = new InboxFold(seedLength)
  for (const event of events) fold.apply(event)
  return fold.snapshot()
}

/** The event that first spliced a message into a queue, if the log has one. */
export function findAdmission(events: readonly SessionEvent[], messageId: string, seedLength = 0): { seq: number; lane: Lane; message: UserMessage } | undefined {
  for (let i = seedLength; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== 'agent/inbox/spliced') continue
    const splice = event.data as InboxSplice
    const message = splice.inserted.find((m) => m.id === messageId)
    if (message) return { seq: event.seq, lane: splice.target, message }
  }
  return undefined
}

export type MessageState =
  | { state: 'queued'; lane: Lane; position: number }
  | { state: 'claimed'; turn: number; stepped: boolean; turnEnd?: string }
  | { state: 'rejected'; turn: number; by: string; metadata: unknown }
  | { state: 'canceled' }

/** `GET /v1/sessions/:id/messages/:messageId`: a message's state, where and when it was admitted. */
export type MessageStatus = MessageState & { messageId: string; admittedSeq: number; lane: Lane }

/** A `claimed` status: by `turn`, delivered to a step or not, with how the turn ended once it has. */
export function claimedStatus(base: { messageId: string; admittedSeq: number; lane: Lane }, turn: { turn: number; end?: string | undefined }, stepped: boolean): MessageStatus {
  return { ...base, state: 'claimed', turn: turn.turn, stepped, ...(turn.end ? { turnEnd: turn.end } : {}) }
}

/**
 * Where a message went, from the log alone (a fold of splices, turns and pre-step rejects): what a
 * session not live here answers from its stored log. A live session answers the same from its
 * `MessageIndex` (message-index.ts), kept as events are appended, without folding the log.
 */
export function messageState(events: readonly SessionEvent[], messageId: string, seedLength = 0): MessageStatus | undefined {
  const admission = findAdmission(events, messageId, seedLength)
  if (!admission) return undefined
  const base = { messageId, admittedSeq: admission.seq, lane: admission.lane }
  const work = foldConsumedWork(events, seedLength)
  for (const lane of ['next-turn', 'next-step'] as const) {
    const position = work.pending[lane].indexOf(messageId)
    if (position >= 0) return { ...base, state: 'queued', lane, position }
  }
  // The latest turn that claimed it (a message requeued by recovery is claimed again later).
  for (let i = work.turns.length - 1; i >= 0; i--) {
    const turn = work.turns[i]!
    if (turn.stepped.includes(messageId)) return claimedStatus(base, turn, true)
    if (turn.unstepped.includes(messageId)) {
      const rejected = events.find((e) => e.type === 'agent/pre-step/rejected' && (e.data as { turn: number }).turn === turn.turn)
      if (rejected) {
        const data = rejected.data as { by: string; metadata: unknown }
        return { ...base, state: 'rejected', turn: turn.turn, by: data.by, metadata: data.metadata }
      }
      return claimedStatus(base, turn, false)
    }
    // Claimed by the open turn, not yet handed to a model step (a pre-step is deciding).
    if (turn.inFlight?.includes(messageId)) return claimedStatus(base, { turn: turn.turn }, false)
  }
  if (work.canceled.includes(messageId)) return { ...base, state: 'canceled' }
  return undefined
}
