/**
 * The host stream (`GET /v1/stream`): frames about sessions — added, status and queue counts —
 * for session lists. Each subscriber keeps only the set of sessions that changed since it last
 * read (the latest state wins), so a slow one holds at most one pending entry per session and the
 * sessions never wait for it.
 */
export interface SessionSummaryFrame {
  id: string
  status: string
  loaded: boolean
  lastSeq: number
  queue: { 'next-turn': number; 'next-step': number } | null
}

interface Subscriber {
  added: Set<string>
  changed: Set<string>
  wake?: () => void
}

const encoder = new TextEncoder()
const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

export class HostFeed {
  readonly #subscribers = new Set<Subscriber>()
  #closed = false

  constructor(readonly summary: (id: string) => Promise<SessionSummaryFrame | undefined>) {}

  added(id: string): void {
    for (const s of this.#subscribers) {
      s.added.add(id)
      s.wake?.()
    }
  }

  changed(id: string): void {
    for (const s of this.#subscribers) {
      s.changed.add(id)
      s.wake?.()
    }
  }

  close(): void {
    this.#closed = true
    for (const s of this.#subscribers) s.wake?.()
  }

  stream(hello: () => Promise<unknown>, keepAliveMs: number): ReadableStream<Uint8Array> {
    const sub: Subscriber = { added: new Set(), changed: new Set() }
    this.#subscribers.add(sub)
    let helloSent = false
    const end = (): void => {
      this.#subscribers.delete(sub)
    }
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!helloSent) {
          helloSent = true
          controller.enqueue(encoder.encode(`retry: 1000\n${frame('hello', await hello())}`))
          return
        }
        for (;;) {
          if (this.#closed) {
            end()
            controller.close()
            return
          }
          if (sub.added.size > 0 || sub.changed.size > 0) {
            const added = [...sub.added]
            const changed = [...new Set([...added, ...sub.changed])]
            sub.added.clear()
            sub.changed.clear()
            let out = ''
            for (const id of added) out += frame('session.added', { id })
            for (const id of changed) {
              const summary = await this.summary(id)
              if (summary) out += frame('session.status', summary)
            }
            if (out !== '') {
              controller.enqueue(encoder.encode(out))
              return
            }
            continue
          }
          let timer: ReturnType<typeof setTimeout> | undefined
          const timedOut = await new Promise<boolean>((resolve) => {
            sub.wake = () => resolve(false)
            timer = setTimeout(() => resolve(true), keepAliveMs)
          })
          clearTimeout(timer)
          sub.wake = undefined
          if (timedOut && !this.#closed) {
            controller.enqueue(encoder.encode(': keep-alive\n\n'))
            return
          }
        }
      },
      cancel: () => end(),
    }, { highWaterMark: 0 })
  }
}
