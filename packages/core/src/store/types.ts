import type { SessionEvent, SessionHeader } from '../session/events.js'

/**
 * The write side of one open session. `append` is synchronous and only enqueues; the store
 * writes behind in batches. `flush` resolves once everything appended before it is durable, and
 * rejects with the write error otherwise (the failed batch stays queued, in order, for a retry).
 */
export interface SessionWriter {
  append(event: SessionEvent): void
  flush(): Promise<void>
  /** Flushes, then releases the session (file handles, leases). */
  close(): Promise<void>
}

/** A stored session as `open` returns it. */
export interface StoredSession {
  header: SessionHeader
  /** Every event, `seq` contiguous from 0. */
  events: SessionEvent[]
  writer: SessionWriter
}

export interface SessionSummary {
  id: string
  createdAt: number
  parent?: string
  /** Number of events, where the store knows it cheaply. */
  length?: number
}

/**
 * Keeps sessions. `memory` is built in; the JSONL and SQLite stores are plugins. Every store
 * passes the same contract suite.
 */
export interface Store {
  /** Short name for messages, e.g. `memory`, `jsonl`. */
  readonly name: string
  /** Creates a session with `header` and optional seed events; fails with SESSION_EXISTS if the id is taken. */
  create(header: SessionHeader, seed?: readonly SessionEvent[]): Promise<StoredSession>
  /** Opens a stored session, or resolves `undefined` if there is none with this id. */
  open(id: string): Promise<StoredSession | undefined>
  list(): Promise<SessionSummary[]>
  /** Flushes and releases everything. */
  close(): Promise<void>
}
