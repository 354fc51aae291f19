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
  wake?: () => void
}

export class HostFeed {
  readonly #subscribers = new Set<Subscriber>()
  readonly #watchers = new Set<(id: string | null) => void>()
  #closed = false

  constructor(readonly summary: (id: string) => Promise<SessionSummaryFrame | undefined>) {}

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

  stream(hello: () => Promise<unknown>, keepAliveMs: number): ReadableStream<Uint8Array> {
    const sub: Subscriber = { added: new Set(), changed: new Set(), relist: false }
    this.#subscribers.add(sub)
    const end = (): void => {
      this.#subscribers.delete(sub)
    }
    return sseStream({
      first: async () => `retry: 1000\n${sseFrame('hello', await hello())}`,
      read: async () => {
        let out = ''
        if (sub.relist) {
          sub.relist = false
          out += sseFrame('hello', await hello())
        }
        // Sent after a new hello too (it may hold them already): a session.added is never dropped.
        if (sub.added.size === 0 && sub.changed.size === 0) return out
        const added = [...sub.added]
        const changed = [...new Set([...added, ...sub.changed])]
        sub.added.clear()
        sub.changed.clear()
        for (const id of added) out += sseFrame('session.added', { id })
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
