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
  /** A fork: the session it was forked from (its header's `parent`). */
  parent?: string
}

interface Subscriber {
  added: Set<string>
  changed: Set<string>
  /** The whole list is to be sent again (a `hello`): see {@link HostFeed.relist}. */
  relist: boolean
  /**
   * A stream opened before a cluster host first listened ({@link HostFeed.listened}): the ids it
   * has told of (its hello's, then each `session.added`), to tell it then of those it missed.
   */
  told?: Set<string>
  /** {@link HostFeed.listened} came: the next read tells of the sessions not in `told`. */
  catchUp: boolean
  wake?: () => void
}

/** The host stream's `hello`: every session. */
export interface HostHello { sessions: ReadonlyArray<{ id: string }> }

export class HostFeed {
  readonly #subscribers = new Set<Subscriber>()
  readonly #watchers = new Set<(id: string | null) => void>()
  #closed = false
  /** A cluster host whose LISTEN connection has not been up yet: see {@link listened}. */
  #beforeListen: boolean

  constructor(
    readonly summary: (id: string) => Promise<SessionSummaryFrame | undefined>,
    /** A cluster host: sessions other hosts make are told by NOTIFY, which needs its LISTEN connection ({@link listened}). */
    options: { cluster?: boolean } = {},
  ) {
    this.#beforeListen = options.cluster === true
  }

  added(id: string): void {
    for (const s of this.#subscribers) {
      s.added.add(id)
      s.wake?.()
    }
    for (const watcher of this.#watchers) watcher(id)
  }

  changed(id: string): void {
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
    for (const s of this.#subscribers) {
      if (s.told === undefined) continue
      s.catchUp = true
      s.wake?.()
    }
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
   * Calls `listener` with the id of each session added or changed, and with null when the host
   * closes (a cold session's stream waits on it to go live); returns the unwatch.
   */
  watch(listener: (id: string | null) => void): () => void {
    this.#watchers.add(listener)
    return () => this.#watchers.delete(listener)
  }

  stream(hello: () => Promise<HostHello>, keepAliveMs: number): ReadableStream<Uint8Array> {
    // Decided when the stream opens: a hello read while the LISTEN connection comes up may miss a create.
    const sub: Subscriber = { added: new Set(), changed: new Set(), relist: false, catchUp: false, ...(this.#beforeListen ? { told: new Set<string>() } : {}) }
    this.#subscribers.add(sub)
    const end = (): void => {
      this.#subscribers.delete(sub)
    }
    return sseStream({
      first: async () => {
        const list = await hello()
        for (const { id } of list.sessions) sub.told?.add(id)
        return `retry: 1000\n${sseFrame('hello', list)}`
      },
      read: async () => {
        let out = ''
        if (sub.relist || sub.catchUp) {
          const { relist, told } = sub
          // Told of everything after this (a new hello, or the catch-up): no ids to keep.
          sub.relist = sub.catchUp = false
          sub.told = undefined
          const list = await hello()
          if (relist) out += sseFrame('hello', list)
          else for (const { id } of list.sessions) if (!told!.has(id)) sub.added.add(id)
        }
        // Sent after a new hello too (it may hold them already): a session.added is never dropped.
        if (sub.added.size === 0 && sub.changed.size === 0) return out
        const added = [...sub.added]
        const changed = [...new Set([...added, ...sub.changed])]
        sub.added.clear()
        sub.changed.clear()
        for (const id of added) {
          sub.told?.add(id)
          out += sseFrame('session.added', { id })
        }
        for (const id of changed) {
          const summary = await this.summary(id)
          if (summary) out += sseFrame('session.status', summary)
        }
        return out
      },
      wait: async (ms) => {
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
