import type { InboxSplice, InboxTarget, UserMessage } from '@bosun/core'
import type { LiveSession } from './live-session.js'

/** A message to hand over: as it was last, and the lane it was last in. */
export interface UnwrittenMessage {
  message: UserMessage
  lane: InboxTarget
}

/**
 * The messages clients sent (`source.kind: 'user'`) that the session's splices inserted after the
 * last seq known durable — this host's own flushes and waits, or any flush since — each once, in
 * the order they were first admitted, each in its final state: the splices after the durable point
 * are replayed, so a message canceled since (`DELETE …/inbox/:id`, a cancel) is left out, and an
 * edited one (`PATCH`) is handed over as last edited, in the lane it was last moved to.
 *
 * A message a turn claimed in that window is handed over: its claim was never written, and the
 * model never saw it — the loop flushes before every model request (core's model-call.ts), and
 * that flush, here fenced, is what would have made the claim durable (and then the message would
 * not be in this window). So no model call and no tool ran for it; what a later step's claim
 * passes before that flush (the `system` function, `agent/pre-step` and `prepareCall` taps) runs
 * again on the new owner (docs/host.md, "Accepted messages").
 *
 * A message written before the durable point is not handed over (its new owner has it); nor is an
 * edit or a cancel of one made after it: those are lost, as a host crash loses them.
 */
export function unwrittenMessages(live: LiveSession): UnwrittenMessage[] {
  const { session } = live.agent
  const seedLength = session.header.seedLength ?? 0
  const from = Math.max(seedLength, live.durableSeq + 1, session.durableLength)
  // The queues from the seed on: a splice's removal is known only by the queue it applies to.
  const queues: Record<InboxTarget, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  const found = new Map<string, UnwrittenMessage>()
  /** Ids admitted before the durable point: the new owner has them (an edit, a move since does not make them new). */
  const written = new Set<string>()
  for (let seq = seedLength; seq < session.length; seq++) {
    const event = session.eventAt(seq)
    if (event?.type !== 'agent/inbox/spliced') continue
    const splice = event.data as InboxSplice
    const removed = queues[splice.target].splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    if (seq < from) {
      for (const message of splice.inserted) written.add(message.id)
      continue
    }
    // An edit is a canceled removal that inserts the same id: the insertion below keeps it.
    const kept = new Set(splice.inserted.map((message) => message.id))
    if (splice.outcome === 'canceled') for (const message of removed) if (!kept.has(message.id)) found.delete(message.id)
    for (const message of splice.inserted) {
      if ((message.source as { kind?: string } | undefined)?.kind === 'user' && !written.has(message.id)) found.set(message.id, { message, lane: splice.target })
    }
  }
  return [...found.values()]
}
