import { BosunError, ErrorCodes } from '../errors.js'
import { toUserMessage, type UserMessage } from '../session/messages.js'
import type { Session } from '../session/session.js'
import type { InboxQueues } from './queues.js'
import { INBOX_TARGETS, otherTarget, type InboxSplice } from './types.js'

/**
 * Rebuilds the queues from the session's log, once, when the inbox is made: every
 * `agent/inbox/spliced` event after the seed, each checked in full (a stored splice may come from
 * a damaged or foreign log), and every `user/message` (its id is seen and no longer returnable).
 * The live path checks less, because it builds its splices itself (inbox.ts, `#mutate`).
 */
export function replayInbox(session: Session, queues: InboxQueues): void {
  const events = session.events
  const seedLength = session.header.seedLength ?? 0
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    if (event.type === 'user/message') {
      queues.delivered(event.data as UserMessage)
      continue
    }
    if (event.type !== 'agent/inbox/spliced' || i < seedLength) continue
    try {
      const data = event.data as InboxSplice
      const splice = checkStoredSplice(data, queues)
      const removed = queues.apply(splice, data.outcome === undefined && (data.removedCount ?? 0) > 0)
      if (queues.torn !== undefined) for (const message of splice.inserted) queues.untear(message)
      if (data.outcome === 'moved') for (const message of removed) queues.noteTorn(message, otherTarget(data.target))
    } catch (error) {
      throw new BosunError(
        ErrorCodes.INVALID_PERSISTED_SPLICE,
        `Invalid persisted inbox splice at session seq ${event.seq} of session "${session.header.id}": ${(error as Error).message}`,
        { cause: error, details: { seq: event.seq, sessionId: session.header.id } },
      )
    }
  }
  // Replay made these for messages that have since left them: an idle session keeps none.
  queues.dropEmpty()
}

/**
 * A stored splice, checked against the queues as replay has them so far: its shape and outcome,
 * its messages (made into checked messages), its target and bounds, and what the queues require
 * of the messages it inserts — not the receipt rule: the log is what happened.
 */
function checkStoredSplice(data: InboxSplice, queues: InboxQueues): InboxSplice {
  if (!Array.isArray(data.inserted)) throw new Error('"inserted" is not an array')
  if (data.outcome !== undefined && (!data.removedCount || (data.outcome !== 'canceled' && (data.outcome !== 'moved' || data.inserted.length > 0)))) {
    throw new Error(`"outcome" must be absent, or "canceled" on a removal, or "moved" on a pure removal, got ${JSON.stringify(data.outcome)}`)
  }
  const splice = { ...data, inserted: data.inserted.map((m, i) => toUserMessage(m, `inserted[${i}]`)) }
  if (!INBOX_TARGETS.includes(splice.target)) {
    throw new BosunError(ErrorCodes.INVALID_SPLICE, `Unknown inbox target ${JSON.stringify(splice.target)}.`)
  }
  const queue = queues.queue(splice.target)
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
  if (splice.inserted.length > 0) queues.checkInserted(splice, 'replay')
  return splice
}
