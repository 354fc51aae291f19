import { invalidArgument } from '../errors.js'
import type { UserMessage } from '../session/messages.js'

/** The two FIFO queues: `next-turn` waits for its own turn, `next-step` for the next step boundary. */
export type InboxTarget = 'next-turn' | 'next-step'

export const INBOX_TARGETS: readonly InboxTarget[] = ['next-turn', 'next-step']

/**
 * The data of `agent/inbox/spliced`: normalised coordinates, never the caller's raw input, so
 * that replay is mechanical. No `removedCount` means a pure insertion; `outcome: 'canceled'`
 * marks a public removal (a claim's pure deletion has no outcome); `outcome: 'moved'` marks the
 * first half of a move between the queues (a pure removal, neither claim nor cancel), whose
 * second half is the plain insertion of the same messages into the other queue that follows it.
 */
export interface InboxSplice {
  target: InboxTarget
  start: number
  removedCount?: number
  inserted: readonly UserMessage[]
  outcome?: 'canceled' | 'moved'
}

/** Live notifications; replay sends none. They must not throw (a throw is contained and reported). */
export interface InboxNotifications {
  inserted(message: UserMessage, target: InboxTarget): void
  discarded(message: UserMessage, target: InboxTarget): void
  claimed(message: UserMessage, turn: number): void
}

/** The other queue: where a move from `target` goes. */
export function otherTarget(target: InboxTarget): InboxTarget {
  return target === 'next-turn' ? 'next-step' : 'next-turn'
}

/** A public method's `target` argument: INVALID_ARGUMENT unless it names one of the two queues. */
export function checkTarget(target: InboxTarget, what: string): void {
  if (!INBOX_TARGETS.includes(target)) {
    throw invalidArgument(`${what} must be "next-turn" or "next-step", got ${JSON.stringify(target)}.`)
  }
}
