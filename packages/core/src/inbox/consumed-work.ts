import type { BosunEventMap, SessionEvent } from '../session/events.js'
import { derivedFrom, type UserMessage } from '../session/messages.js'
import type { InboxSplice } from './types.js'

/** Where the work claimed by one turn went. */
export interface TurnWork {
  turn: number
  /** Claimed and delivered to the model as `user/message` in a step (itself, or a message a pre-step derived from it). */
  stepped: string[]
  /** Claimed but never reached a step: rejected by pre-step, emptied, or the turn failed first. */
  unstepped: string[]
  /** How the turn ended (absent while it is open). */
  end?: BosunEventMap['turn/end']['reason']['kind']
  /**
   * Only on a turn still open at the end of the log: claimed and not (yet) delivered to a step.
   * Such a message is neither pending nor settled: a pre-step may still run, or a crash leaves it
   * for recovery, which moves it to `unstepped` when it closes the turn.
   */
  inFlight?: string[]
}

export interface ConsumedWork {
  turns: TurnWork[]
  /** Ids removed by a public (canceled) splice, in log order. */
  canceled: string[]
  /** Ids still pending at the end of the log, by queue. */
  pending: { 'next-turn': string[]; 'next-step': string[] }
}

/**
 * A pure fold of the log that answers where each message went: per turn, which claimed messages
 * reached a step and which did not, which messages were canceled, and what is still pending. It
 * reads only turn boundaries, `user/message` and inbox splices — no in-memory state — so it can
 * audit any stored session (seed 001 §4). Splices before `seedLength` belong to the parent.
 */
export function foldConsumedWork(events: readonly SessionEvent[], seedLength = 0): ConsumedWork {
  const queues: Record<'next-turn' | 'next-step', UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  const turns: TurnWork[] = []
  const canceled: string[] = []
  let current: { work: TurnWork; claimed: Set<string> } | undefined

  for (let i = seedLength; i < events.length; i++) {
    const event = events[i]!
    switch (event.type) {
      case 'turn/start': {
        const work: TurnWork = { turn: (event.data as { turn: number }).turn, stepped: [], unstepped: [] }
        turns.push(work)
        current = { work, claimed: new Set() }
        break
      }
      case 'agent/inbox/spliced': {
        const splice = event.data as InboxSplice
        const removed = queues[splice.target].splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
        const kept = new Set(splice.inserted.map((message) => message.id)) // an edit keeps its id
        for (const message of removed) {
          // A move's removal is neither: its insertion into the other queue follows.
          if (splice.outcome === 'moved') continue
          if (splice.outcome === 'canceled') {
            if (!kept.has(message.id)) canceled.push(message.id)
          }
          else if (current) current.claimed.add(message.id) // a pure deletion inside a turn is a claim
        }
        break
      }
      case 'user/message': {
        const message = event.data as UserMessage
        if (current?.claimed.delete(message.id)) current.work.stepped.push(message.id)
        // A message a pre-step derived from claimed input delivers that input (hooks.md, "rewriting").
        for (const id of derivedFrom(message)) if (current?.claimed.delete(id)) current.work.stepped.push(id)
        break
      }
      case 'turn/end': {
        if (current) {
          current.work.unstepped.push(...current.claimed)
          current.work.end = (event.data as BosunEventMap['turn/end']).reason.kind
        }
        current = undefined
        break
      }
    }
  }
  if (current && current.claimed.size > 0) current.work.inFlight = [...current.claimed]
  return {
    turns,
    canceled,
    pending: { 'next-turn': queues['next-turn'].map((m) => m.id), 'next-step': queues['next-step'].map((m) => m.id) },
  }
}
