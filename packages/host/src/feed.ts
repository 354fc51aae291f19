import { sseFrame, sseStream } from './sse.js'

/**
 * The host stream (`GET /v1/stream`): frames about sessions — added, status and queue counts —
 * for session lists. Each subscriber keeps only the set of sessions that changed since it last
 * read (the latest state wins), so a slow one holds at most one pending entry per session and the
 * sessions never wait for it.
 */
export interface SessionSummaryFrame {
  id: string
  /** When the session was made (its header's `createdAt`, epoch ms). */
  createdAt?: number
  status: string
  loaded: boolean
  lastSeq: number
  /** Last activity: the `time` of the log's last event (epoch ms), null while the log is empty. */
  lastEventAt: number | null
  queue: { 'next-turn': number; 'next-step': number } | null
  /**
   * A preview of the session's first prompt, for a list to name it by: the first message a user
   * sent, else the first one queued (the stores' `firstPrompt`: at most 200 code points, a longer
   * text cut with `…`); null while there is none.
   */
  firstPrompt: string | null
  /** A fork: the session it was forked from (its header's `parent`). */
  parent?: string
}

interface Subscriber {
  added: Set<string>
  changed: Set<string>
  /** Removed since the last read: sent before what was added (a session removed and made again is told in that order). */
  removed: Set<string>
  /** The whole list is to be sent again (a `hello`): see {@link HostFeed.relist}. */
  relist: boolean
  /**
   * A stream opened before a cluster host first listened ({@link HostFeed.listened}), not caught up
   * yet: the generation of its hello (0 until it is read) — what it was told is the feed's to know.
   */
  early?: { hello: number }
  /** {@link HostFeed.listened} came: the next read tells of the sessions this stream was not told of. */
  catchUp: boolean
  wake?: () => void
}

/** The host stream's `hello`: every session. */
export interface HostHello { sessions: ReadonlyArray<{ id: string }> }

export class HostFeed {
  readonly #subscribers = new Set<Subscriber>()
  readonly #watchers = new Set<(id: string | null, removed?: true) => void>()
  readonly #madeHere = new Set<(id: string) => void>()
  #closed = false
  /** A cluster host whose LISTEN connection has not been up yet: see {@link listened}. */
  #beforeListen: boolean
  /** The streams opened before the first listen that are not caught up yet ({@link listened}). */
  readonly #early = new Set<Subscriber>()
  /**
   * While there are such streams, what they were told, once for all of them: each session id with
   * the generation of the first of their hellos that listed it, or, for a session told to every
   * stream ({@link added}: made here), minus the count of such sessions then (its `session.added`
   * reached every stream open then; a later one's hello lists it). A stream was told of a session
   * its hello's generation is at or after, and of every session told to all. One id per session, however many
   * streams (each kept a set of every id it was told before, for as long as the LISTEN connection
   * stayed down — for its whole life if it never came up); dropped with the last such stream.
   */
  #told: Map<string, number> | undefined
  #generation = 0
  /** Sessions told to every stream so far ({@link added}: made here, or by a NOTIFY). */
  #announced = 0
  /**
   * Sessions told removed and not made again since: a cluster host hears its own removals again
   * from the store's NOTIFY (and a removal's route and NOTIFY may both tell one elsewhere) —
   * told once. The oldest forgotten past {@link REMOVED_KEPT}. (A NOTIFY of a removal that
   * came before the id was made here again is not told at all: cluster/session-notices.ts.)
   */
  readonly #removedTold = new Set<string>()

  constructor(
    readonly summary: (id: string) => Promise<SessionSummaryFrame | undefined>,
    /** A cluster host: sessions other hosts make are told by NOTIFY, which needs its LISTEN connection ({@link listened}). */
    options: { cluster?: boolean } = {},
  ) {
    this.#beforeListen = options.cluster === true
  }

  /** A session made here (created, forked, a subagent's child): `session.added`. */
  added(id: string): void {
    for (const listener of this.#madeHere) listener(id)
    this.madeElsewhere(id)
  }

  /** A session another host (or process) made, from the store's NOTIFY: `session.added`. */
  madeElsewhere(id: string): void {
    this.#removedTold.delete(id)
    this.#announced++
    this.#told?.set(id, -this.#announced)
    for (const s of this.#subscribers) {
      s.added.add(id)
      s.wake?.()
    }
    for (const watcher of this.#watchers) watcher(id)
  }

  /**
   * Session `id` was removed (here, or on another host of a cluster): `session.removed` to every
   * stream, its pending `session.added` and `session.status` dropped (latest state wins); the
   * watchers are told with `removed: true`.
   */
  removed(id: string): void {
    if (this.#removedTold.has(id)) return
    this.#removedTold.add(id)
    if (this.#removedTold.size > REMOVED_KEPT) this.#removedTold.delete(this.#removedTold.values().next().value!)
    this.#told?.delete(id)
    for (const s of this.#subscribers) {
      s.added.delete(id)
      s.changed.delete(id)
      s.removed.add(id)
      s.wake?.()
    }
    for (const watcher of this.#watchers) watcher(id, true)
  }

  changed(id: string): void {
    // Removed (and not made again): nothing of it is sent any more — a late signal (a cluster's
    // status NOTIFY) would send a row of a session that is gone.
    if (this.#removedTold.has(id)) return
    for (const s of this.#subscribers) {
      s.changed.add(id)
      s.wake?.()
    }
    for (const watcher of this.#watchers) watcher(id)
  }

  /**
   * Every stream sends a new `hello` (the whole list, read when the stream next writes) — a
   * cluster host whose LISTEN connection was down may have missed sessions other hosts made. A
   * client replaces its list with a `hello` wherever it comes, as after a reconnect.
   */
  relist(): void {
    // The new hello tells what is gone: a removal heard after it is told again.
    this.#removedTold.clear()
    for (const s of this.#subscribers) {
      s.relist = true
      s.wake?.()
    }
  }

  /**
   * A cluster host's LISTEN connection is up for the first time. A stream opened before it may have
   * missed a NOTIFY of a session another host made after its hello was read: it is sent
   * `session.added` (and the row) for each session the list has now that it was not told of —
   * not a second `hello`. Streams opened from now on need nothing: every later create is notified.
   */
  listened(): void {
    if (!this.#beforeListen) return
    this.#beforeListen = false
    for (const s of this.#early) {
      s.catchUp = true
      s.wake?.()
    }
  }

  /** What the streams opened before the first listen hold for their catch-up: how many there are, and the session ids kept for them. */
  get heldForCatchUp(): { streams: number; ids: number } {
    return { streams: this.#early.size, ids: this.#told?.size ?? 0 }
  }

  /** An early stream's hello was read (its read began after `announced` sessions were told to all): the sessions it lists are told to it. */
  #hello(sub: Subscriber, list: HostHello, announced: number): void {
    if (sub.early === undefined) return
    const generation = ++this.#generation
    sub.early.hello = generation
    const told = (this.#told ??= new Map())
    const listed = new Set(list.sessions.map(({ id }) => id))
    for (const id of listed) if (!told.has(id)) told.set(id, generation)
    // A session an earlier hello listed and this one does not: deleted, or made after this list was
    // read by a read that ended first. Forgotten, it is told at the catch-up to every stream that
    // lists it by then (one that was told already hears it twice, never one that was not). A
    // session told to all before this read began and not listed was deleted; one told since stays.
    for (const [id, at] of told) if (!listed.has(id) && (at > 0 || -at <= announced)) told.delete(id)
  }

  /** The sessions of `list` an early stream was not told of. */
  #missed(sub: Subscriber, list: HostHello): string[] {
    const hello = sub.early?.hello ?? 0
    return list.sessions.map(({ id }) => id).filter((id) => {
      const at = this.#told?.get(id)
      return at === undefined || at > hello
    })
  }

  /** An early stream caught up (or ended): the last one drops what was kept for them. */
  #caughtUp(sub: Subscriber): void {
    if (sub.early === undefined) return
    sub.early = undefined
    this.#early.delete(sub)
    if (this.#early.size === 0) this.#told = undefined
  }

  get closed(): boolean {
    return this.#closed
  }

  close(): void {
    this.#closed = true
    for (const s of this.#subscribers) s.wake?.()
    for (const watcher of this.#watchers) watcher(null)
  }

  /**
   * Calls `listener` with the id of each session added or changed — and removed, with `removed:
   * true` —, and with null when the host closes (a cold session's stream waits on it to go live);
   * returns the unwatch.
   */
  watch(listener: (id: string | null, removed?: true) => void): () => void {
    this.#watchers.add(listener)
    return () => this.#watchers.delete(listener)
  }

  /**
   * Calls `listener` with the id of each session made here ({@link added}) — a cluster host's own
   * creates, whose NOTIFY comes back later (cluster/session-notices.ts); returns the unwatch.
   */
  onMadeHere(listener: (id: string) => void): () => void {
    this.#madeHere.add(listener)
    return () => this.#madeHere.delete(listener)
  }

  stream(hello: () => Promise<HostHello>, keepAliveMs: number): ReadableStream<Uint8Array> {
    // Decided when the stream opens: a hello read while the LISTEN connection comes up may miss a create.
    const sub: Subscriber = { added: new Set(), changed: new Set(), removed: new Set(), relist: false, catchUp: false, ...(this.#beforeListen ? { early: { hello: 0 } } : {}) }
    this.#subscribers.add(sub)
    if (sub.early !== undefined) this.#early.add(sub)
    const end = (): void => {
      this.#subscribers.delete(sub)
      this.#caughtUp(sub)
    }
    return sseStream({
      first: async () => {
        const announced = this.#announced
        const list = await hello()
        this.#hello(sub, list, announced)
        return `retry: 1000\n${sseFrame('hello', list)}`
      },
      read: async () => {
        let out = ''
        if (sub.relist || sub.catchUp) {
          const { relist } = sub
          sub.relist = sub.catchUp = false
          const list = await hello()
          if (relist) out += sseFrame('hello', list)
          else for (const id of this.#missed(sub, list)) sub.added.add(id)
          // Told of everything after this (a new hello, or the catch-up): nothing to keep for it.
          this.#caughtUp(sub)
        }
        // Sent after a new hello too (it may hold them already): a session.added is never dropped.
        if (sub.added.size === 0 && sub.changed.size === 0 && sub.removed.size === 0) return out
        const removed = [...sub.removed]
        const added = [...sub.added]
        const changed = [...new Set([...added, ...sub.changed])]
        sub.removed.clear()
        sub.added.clear()
        sub.changed.clear()
        for (const id of removed) out += sseFrame('session.removed', { id })
        for (const id of added) out += sseFrame('session.added', { id })
        for (const id of changed) {
          const summary = await this.summary(id)
          if (summary) out += sseFrame('session.status', summary)
        }
        return out
      },
      wait: async (ms) => {
        // Changed while the read was awaiting (its wake had no waiter): read again at once, not at the keep-alive.
        if (sub.added.size > 0 || sub.changed.size > 0 || sub.removed.size > 0 || sub.relist || sub.catchUp || this.#closed) return false
        let timer: ReturnType<typeof setTimeout> | undefined
        const timedOut = await new Promise<boolean>((resolve) => {
          sub.wake = () => resolve(false)
          timer = setTimeout(() => resolve(true), ms)
        })
        clearTimeout(timer)
        sub.wake = undefined
        return timedOut
      },
      ended: () => this.#closed,
      end,
    }, keepAliveMs)
  }
}

/** How many removed sessions the feed remembers having told ({@link HostFeed.removed}). */
const REMOVED_KEPT = 1024
