/**
 * The queues, replayed from `agent/inbox/spliced` exactly as the core's inbox replays them, and
 * the hand-off window: a claim (a pure deletion with no outcome) moves a message to `inFlight`
 * until its `user/message` lands, the turn is rejected or it ends — so pending steering has no
 * gap and no duplicate between the queue and the conversation.
 */
import type { Draft } from './draft.js'
import type { Splice } from './wire.js'

export function applySplice(draft: Draft, splice: Splice): void {
  const queues = draft.own('queues')
  const queue = [...queues[splice.target]]
  const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
  queues[splice.target] = queue
  const turn = draft.view.openTurn
  const isClaim = removed.length > 0 && splice.outcome === undefined && splice.inserted.length === 0 && turn !== null
  const inserted = new Set(splice.inserted.map((message) => message.id))
  let inFlight = draft.view.inFlight
  // A message put back in a queue (a requeue, a move between lanes) is no longer in flight.
  if (inserted.size > 0 && inFlight.some((entry) => inserted.has(entry.message.id))) inFlight = inFlight.filter((entry) => !inserted.has(entry.message.id))
  if (isClaim) inFlight = [...inFlight, ...removed.map((message) => ({ message, lane: splice.target, turn }))]
  draft.view.inFlight = inFlight
}
