import type { EventLog } from '../session/event-log.js'
import type { Delegation, SessionEvent, SessionHeader } from '../session/events.js'

/**
 * The write side of one open session. `append` is synchronous and only enqueues; the store
 * writes behind in batches. `flush` resolves once everything appended before it is durable, and
 * rejects with the write error otherwise (the failed batch stays queued, in order, for a retry).
 *
 * Rules every store follows (the contract suite checks them):
 * - `append` receives events with `seq` following the stored log by one. An event whose `seq`
 *   does not follow — another writer appended meanwhile — is refused with `STALE_WRITER`, thrown
 *   from `append` or reported by the next `flush`, and nothing of it is stored.
 * - A store keeps every own field of the event envelope (`seq`, `time`, `type`, `data` and
 *   optional fields such as `ignorable`) and gives them back unchanged from `open`.
 * - A failed write never leaves a partial event behind: the stored log is always a prefix of
 *   what was appended.
 */
export interface SessionWriter {
  append(event: SessionEvent): void
  flush(): Promise<void>
  /**
   * Flushes, then releases the session (file handles, leases). Releases even when the final
   * flush fails, and then rejects with that error.
   */
  close(): Promise<void>
}

/** A stored session as `open` and `create` return it. */
export interface StoredSession {
  header: SessionHeader
  /**
   * Every event, `seq` contiguous from 0, deep-frozen. Read-only to the caller: read it, or pass
   * it to a `Session`, which takes it over and appends through its writer. Most stores hand out a
   * fresh array; the memory store hands out a read-only view (writes throw READ_ONLY) for a
   * session whose log has sealed pages, which a `Session` adopts without decoding its pages. A
   * store may return a mutable array here (it is assignable); a caller that needs one copies it
   * (`[...stored.events]`).
   */
  events: readonly SessionEvent[]
  writer: SessionWriter
}

/**
 * What a new session is made from — `Store.create`'s arguments: its header, and the events it is
 * seeded with (`seq` contiguous from 0, as a fork makes them). See `createAgent`'s `newSession`.
 */
export interface NewSession {
  header: SessionHeader
  seed?: readonly SessionEvent[]
}

export interface SessionSummary {
  id: string
  createdAt: number
  parent?: string
  /** Number of events, where the store knows it cheaply. */
  length?: number
  // The five fields below, where the store knows them cheaply and correctly (without reading the
  // whole log: a summary kept beside it, written with every batch, as the SQLite and PostgreSQL
  // stores do, kept as a cache and folded on over the log's last lines, as the JSONL store does,
  // or folded on from the last list, as the memory store does). Each is what
  // `summarizeLog(header, events)` computes from the whole log (the contract suite checks it). A
  // store gives the first four with `length`, or none; `queued` with them, except from a summary
  // written by a build that did not count each queue (SQLite and PostgreSQL until the session's next
  // batch, JSONL until its writer next writes the `<id>.summary.json` sidecar). A reader that needs
  // a field that is absent reads the log.
  /** Time of the last event (the creation time for an empty log). */
  lastActivity?: number
  /** The last turn number started (0 before the first turn). */
  turns?: number
  /**
   * Text of the first message a user sent, else of the first one queued; `null`: there is none.
   * A preview of at most `FIRST_PROMPT_MAX` code points (summary.ts), a longer text cut with `…`.
   */
  firstPrompt?: string | null
  /** Messages still queued (inserted minus removed by the inbox splices after the seed): the sum of `queued`. */
  pending?: number
  /**
   * Messages still queued in each inbox queue: what the inbox splices after the seed leave in
   * `next-turn` and `next-step` (what folding the log's splices into the two queues gives).
   */
  queued?: { 'next-turn': number; 'next-step': number }
  /**
   * The header's `delegation` (a subagent's child: its parent session and spawning call), `null`
   * when the header has none — given by a store that has the header in hand when it lists (every
   * built-in store: a file's first line, a header row); absent: the store does not say, and a
   * reader that needs it reads the header.
   */
  delegation?: Delegation | null
}

/**
 * Keeps sessions. `memory` is built in; the JSONL and SQLite stores are plugins. Every store
 * passes the same contract suite.
 */
export interface Store {
  /** Short name for messages, e.g. `memory`, `jsonl`. */
  readonly name: string
  /**
   * Creates a session with `header` and optional seed events (`seq` contiguous from 0, as a fork
   * makes them), durably before it resolves. Fails with SESSION_EXISTS if the id is taken and
   * INVALID_SESSION_ID for an id that `assertSessionId` refuses.
   */
  create(header: SessionHeader, seed?: readonly SessionEvent[]): Promise<StoredSession>
  /**
   * Opens a stored session, or resolves `undefined` if there is none with this id. Cuts a torn
   * tail (an incomplete last write) and refuses damage before it (CORRUPT_LOG) and a log of a
   * newer format version (UNSUPPORTED_LOG_VERSION), naming the file.
   */
  open(id: string): Promise<StoredSession | undefined>
  /**
   * Optional: reads a stored session without taking it for writing and without repairing it (a
   * torn tail is left out, not cut), or resolves `undefined` if there is none. A store whose
   * `open` locks a session (JSONL) provides it, so that a fork or a log reader can read a session
   * another agent is writing. Without it, readers open the session and close its writer.
   */
  read?(id: string): Promise<{ header: SessionHeader; events: readonly SessionEvent[] } | undefined>
  /**
   * Optional: whether a session with this id is stored, without reading its events (a file's
   * existence, a row's key). A host asks before it resumes a session; without `has` it reads the
   * session (or lists every session) just to answer, and then reads it again to open it.
   */
  has?(id: string): Promise<boolean>
  /**
   * Optional: a stored session's header without its events (a file's first line, a row), or
   * `undefined` if there is none. A host reads it before it opens a session, to know whether the
   * session is a subagent's child that its parent must build; without it the host reads the whole
   * session for that.
   */
  header?(id: string): Promise<SessionHeader | undefined>
  /**
   * Optional: one session's list summary — what `list()` gives for it, the header's `delegation`
   * aside — without listing every session or reading its log (a row, a file beside the log), or
   * `undefined` if there is none.
   * `length` is required here: the number of events stored when the summary was read, a
   * consistent snapshot with the fields beside it. A host reads it to learn where a session's log
   * ends (a page of `GET …/events`, the start of a chat stream on another host of a cluster).
   */
  summary?(id: string): Promise<(SessionSummary & { length: number }) | undefined>
  /**
   * Optional: the stored events of a session from `fromSeq` on, in order, at most `limit`
   * (default 1000), as a range of the log (its cost is what it returns, whatever the history's
   * length); empty for an unknown session or nothing stored there. With {@link Store.summary} a
   * host reads a page or the tail of a log that is not open instead of the whole of it.
   */
  readEvents?(id: string, fromSeq: number, limit?: number): Promise<SessionEvent[]>
  list(): Promise<SessionSummary[]>
  /**
   * Optional: deletes one stored session — its log, its summary and whatever else the store keeps
   * for it — durably before it resolves (a crash after that does not bring it back). Resolves
   * `true`, or `false` when no session has this id. Refuses INVALID_SESSION_ID for an id that
   * `assertSessionId` refuses, and SESSION_LOCKED while the session is open for writing: a writer
   * of it that is not closed, in this store object or — where the store locks sessions across
   * processes (JSONL lock files, PostgreSQL leases) — in another live one. It removes that session
   * only: forks are copies and stay; a subagent's children are sessions of their own —
   * `removeSession(store, id)` removes a session with its children.
   */
  remove?(id: string): Promise<boolean>
  /** Flushes and releases everything. */
  close(): Promise<void>
}

/**
 * Core-private (not exported from the package): how a writer offers to keep its stored log in
 * the very log object its `Session` appends to (event-log.ts: sealed pages and a live tail), so
 * that an event is pushed once, into one array, not once into the session's log and again into
 * the store's copy, and a page the idle sweep seals is held once. Only the memory store offers
 * it; a third-party store's writer does not have the key and is used as before.
 */
export const keepsLogIn: unique symbol = Symbol('bosun.writer.keepsLogIn')

/** A writer that can take over a session's log: see {@link keepsLogIn}. */
export interface LogKeepingWriter extends SessionWriter {
  /**
   * Called once by the `Session` built on `events`, the array (or view) this writer came with,
   * with the log the session made of it (absent: a log made of `events`). Returns true if the writer takes that log over: from then
   * on every event it accepts, it pushes there itself (the session must not push it again), and
   * every event it refuses leaves it unchanged. Returns false for any other `events`; the session
   * then pushes, as with any writer.
   */
  [keepsLogIn](events: readonly SessionEvent[], log?: EventLog): boolean
}
