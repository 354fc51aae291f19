import type { Agent, SessionEvent } from '@bosun/core'
import type { MessageIndex } from './message-index.js'
import { noteFinishedStep } from './stream.js'

/** One session as the host serves it: its agent, and what the routes need from its log, kept up to date. */
export interface LiveSession {
  id: string
  agent: Agent
  /** Open SSE streams and in-flight requests: a session in use is never closed for idleness. */
  users: number
  /** Highest seq known durable (flushed or loaded from the store). */
  durableSeq: number
  /** Message ids admitted by this session (from the log), for idempotent receipts. */
  admitted: Map<string, number>
  /** Steps (`turn:step`) whose `assistant/message` is in the log: their chunks are history. */
  finishedSteps: Set<string>
  /** The inbox version: the seq of the latest `agent/inbox/spliced` (-1 before any), for `If-Match`. */
  inboxSeq: number
  /** Where each admitted message went (`GET …/messages/:messageId`): built on the first such request, then fed each appended event. */
  messages?: MessageIndex
  /** Wakes SSE subscribers waiting for new events. */
  listeners: Set<() => void>
  idleTimer?: ReturnType<typeof setTimeout>
  /** Set when the host closes the session (or the owner of a borrowed agent closed it): its streams end. */
  closed?: boolean
  /**
   * The agent belongs to another part of this process — a subagent parent runs this child — and
   * the host borrowed it (`borrowOrOpen` from `@bosun/core`): the host admits, cancels and streams
   * through it but never closes it; it only lets go (see `SessionManager`).
   */
  borrowed?: boolean
  /**
   * A removal of the session (session-remove.ts): `pending` while it runs — its streams wait, even
   * once its agent is closed —, `removed` once the store deleted it (its streams end with a
   * `session.removed` frame).
   */
  removal?: 'pending' | 'removed'
}

/** Whether a live session's streams end now: it closed, and no removal is deciding how (they wait for it). */
export function liveEnded(live: LiveSession): boolean {
  return live.closed === true && live.removal !== 'pending'
}

/** What `SessionManager.drop` (sessions.ts) let go of a live session. */
export interface DroppedSession {
  /** Messages accepted here and maybe never written, posted to the session's next owner (`handOver`). */
  handedOver: number
  /** Messages accepted here and maybe never written, with no next owner to post them to (no cluster): lost. */
  lost: number
  /** The streams (and ACP followers) of the session here, ended. */
  streams: number
  /** A turn was under way here: it is canceled. */
  running: boolean
  /** The agent is another part of this process's (a subagent's child): only let go, its owner stops it. */
  borrowed: boolean
}

/**
 * A session's host state built from its agent's log so far, and `index` to feed it each event
 * appended from now on: admitted message ids (idempotent receipts), finished steps (their chunks
 * are history), the inbox version.
 */
export function liveSession(id: string, agent: Agent, borrowed: boolean): { live: LiveSession; index: (event: SessionEvent) => void } {
  const events = agent.session.events
  const admitted = new Map<string, number>()
  const finishedSteps = new Set<string>()
  // A borrowed agent may hold events its owner has not flushed yet: the manager flushes to know.
  const live: LiveSession = { id, agent, users: 0, durableSeq: borrowed ? -1 : events.length - 1, inboxSeq: -1, admitted, finishedSteps, listeners: new Set(), ...(borrowed ? { borrowed } : {}) }
  const seedLength = agent.session.header.seedLength ?? 0
  const index = (event: SessionEvent): void => {
    noteFinishedStep(finishedSteps, event)
    live.messages?.apply(event)
    if (event.type === 'agent/inbox/spliced' && event.seq >= seedLength) {
      live.inboxSeq = event.seq
      for (const m of (event.data as { inserted: { id: string }[] }).inserted) if (!admitted.has(m.id)) admitted.set(m.id, event.seq)
    }
  }
  for (const event of events) index(event)
  return { live, index }
}
