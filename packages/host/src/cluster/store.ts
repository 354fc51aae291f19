import type { JsonValue, SessionEvent, Store } from '@bosun/core'

/** A mailbox entry as a cluster store returns it (see `@bosun/plugin-store-postgres`'s `Mailbox`). */
export interface ClusterMailboxEntry {
  messageId: string
  kind: string
  body: JsonValue
  deliveredSeq: number | null
  doneAt: number | null
  outcome: JsonValue | null
  /** Admission order (what `mailbox.reopen` checks the entry against). */
  position?: string
}

/** The wake-ups a cluster store gives (LISTEN/NOTIFY with polling as the fallback). */
export interface ClusterWatcher {
  onEvents(id: string, listener: (length: number) => void): () => void
  onMailbox(listener: (session: string, messageId: string | undefined) => void): () => void
  /** A session's commit moved it to `running` or `idle`, on any host (lossy: compare `runningSessions()` now and then). */
  onStatus(listener: (session: string, status: string) => void): () => void
  /**
   * Optional: a session was made (created, forked, a subagent's child) by the store whose lease
   * owner is `owner`, on any host — only a create that committed. Lossy like `onStatus`: see `onListen`.
   */
  onCreated?(listener: (session: string, owner: string) => void): () => void
  /**
   * Optional: a session was removed, on any host (this one's too), once the removing transaction
   * committed. Lossy like `onCreated`: see `onListen`.
   */
  onRemoved?(listener: (session: string) => void): () => void
  /** Optional: the LISTEN connection is up (first, and after each reconnection): what was notified while it was down is lost. */
  onListen?(listener: () => void): () => void
  close(): Promise<void>
}

/**
 * What the host needs from a store to run as one of many hosts on it (SPEC §13): leases (taken
 * by `open`, fenced inside every append), reads without the lease, a mailbox for the lease owner,
 * and wake-ups. Detected by shape, not by package: any store with these members forms a cluster.
 */
export interface ClusterStore extends Store {
  readonly owner: string
  read(id: string): Promise<{ header: import('@bosun/core').SessionHeader; events: readonly SessionEvent[] } | undefined>
  readEvents(id: string, fromSeq: number, limit?: number): Promise<SessionEvent[]>
  /** The sessions mid-turn on any host (a committed `turn/start` without its `turn/end`), without reading logs. */
  runningSessions(): Promise<string[]>
  /**
   * Optional: one session's status without reading its log (`running` mid-turn, `idle` after a
   * turn ended, `null` unknown, `undefined` no such session). Without it, the routes that need to
   * know whether a turn is open read the log.
   */
  sessionStatus?(id: string): Promise<'running' | 'idle' | null | undefined>
  leaseHolder(id: string): Promise<{ owner: string; epoch: string; expiresInMs: number } | undefined>
  /**
   * Optional: on a mailbox wake-up for a session not open here, whether another owner's live lease
   * holds it or a subagent ancestor (`heldElsewhere`) and whether it has pending mail, in one query
   * (`undefined`: no such session). Without it, the host asks `leaseHolder` and `mailbox.pending`.
   */
  wakeCheck?(id: string): Promise<{ heldElsewhere: boolean; pendingMail: boolean } | undefined>
  expiredLeases(limit?: number): Promise<Array<{ id: string }>>
  /**
   * `listener` when a lease of this store is lost: the host drops the session at once. `named`
   * (optional): the same report naming who holds the lease now, once the store has read it — the
   * host's log line waits for it, the drop does not.
   */
  onLeaseLost(listener: (session: string, error: Error, named?: Promise<Error>) => void): () => void
  readonly mailbox: {
    post(session: string, message: { messageId: string; kind?: string; body: JsonValue }): Promise<{ created: boolean; entry: ClusterMailboxEntry }>
    get(session: string, messageId: string): Promise<ClusterMailboxEntry | undefined>
    pending(session: string, limit?: number): Promise<ClusterMailboxEntry[]>
    /** Marks an entry done with its answer; `position` (optional for a store): only while it is the entry read there, not a post that reopened it since. */
    complete(session: string, messageId: string, outcome?: JsonValue, position?: string): Promise<boolean>
    /**
     * Optional: posts again an entry closed without being delivered (pending once more, with this
     * body, after the mail before now), only while it is the entry read at `position`; false when
     * it is not. Without it, a message's error answer stays with its id.
     */
    reopen?(session: string, messageId: string, message: { body: JsonValue; position: string }): Promise<boolean>
    /**
     * Optional: claims a pending entry for its run by this owner (fenced by the lease), so that a
     * splice of its id marks delivered this entry only — not another entry of an id the owner
     * admitted by itself, which then stays pending and is run and answered. False when it is no
     * longer the pending entry read at `position`. Without it, every entry of a spliced id is
     * marked delivered (such an entry is judged by the log: admitted-elsewhere.ts).
     */
    claim?(session: string, messageId: string, position: string): Promise<boolean>
  }
  watch(options?: { pollIntervalMs?: number }): ClusterWatcher
}

const fn = (value: unknown, name: string): boolean => typeof (value as Record<string, unknown>)[name] === 'function'

/** The store as a {@link ClusterStore} when it has the cluster API, else `undefined` (one host per store). */
export function clusterStoreOf(store: Store): ClusterStore | undefined {
  const s = store as Partial<ClusterStore>
  if (typeof s.owner !== 'string' || typeof s.mailbox !== 'object' || s.mailbox === null) return undefined
  const members = ['read', 'readEvents', 'runningSessions', 'leaseHolder', 'expiredLeases', 'onLeaseLost', 'watch']
  if (!members.every((m) => fn(s, m)) || !['post', 'get', 'pending', 'complete'].every((m) => fn(s.mailbox, m))) return undefined
  return store as ClusterStore
}
