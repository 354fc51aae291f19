/**
 * The typed client's SSE plumbing, shared by the session stream and the host stream: reading a
 * response body as SSE messages (eventsource-parser), the error body of a refused stream, and the
 * reconnect backoff. Runtime-free of the host's code, like the client (browsers and Node).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'

/** The host's error answer, when the body is one. */
export interface ErrorBody { code?: string; message?: string; details?: unknown }

/** The `error` of a refused response's JSON body (undefined when it has none). */
export async function errorBody(response: Response): Promise<ErrorBody | undefined> {
  const text = await response.text().catch(() => '')
  try {
    return (JSON.parse(text) as { error?: ErrorBody }).error
  } catch {
    return undefined
  }
}

/**
 * The SSE messages of `body`, in order, until it ends; throws when the connection breaks. The
 * reader is released however the consumer stops (a `break`, an abort, an error).
 */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => queue.push(message) })
  const reader = body.getReader()
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      parser.feed(decoder.decode(value, { stream: true }))
      while (queue.length > 0) yield queue.shift()!
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

/**
 * Whether a stream attempt answered `status` (not a stream) is tried again: a 5xx (the host is
 * away or, 503 too-many-streams, full), a 408, a 429, or an answer with no body. Any other 4xx is
 * the caller's to fix (no such session, not authorized): retrying would be refused the same way.
 */
export function retriesStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429 || status < 400
}

/**
 * The longest wait a `retry-after` gets: a host or proxy asking for longer is asked again after
 * a minute (a page does not sit for an hour on a header).
 */
export const MAX_RETRY_AFTER_MS = 60_000

/**
 * A `retry-after` header's wait in ms — delay-seconds or an HTTP date (RFC 9110 §10.2.3) — capped
 * at {@link MAX_RETRY_AFTER_MS}; undefined when the header is absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined
  const text = header.trim()
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000)
  // Every HTTP-date form starts with the day's name (Date.parse alone takes "-3" or "1.5" as dates).
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(at) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now))
}

/**
 * Reconnect delays: `initialMs` doubling up to `maxMs`, each wait jittered (clients dropped or
 * refused together do not all come back together); back to `initialMs` once a frame arrives.
 */
export class Backoff {
  #delay: number
  /** Waits since the last reset: the number of the retry each wait comes before. */
  #retries = 0
  constructor(
    readonly initialMs: number,
    readonly maxMs: number,
    readonly signal?: AbortSignal,
    /** The jitter's randomness and the wait itself (tests pass their own). */
    readonly hooks: { random?: () => number; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> } = {},
  ) {
    this.#delay = initialMs
  }

  reset(): void {
    this.#delay = this.initialMs
    this.#retries = 0
  }

  /**
   * Waits between half the current delay and all of it — or, when the host answered with a
   * `retry-after` (`retryAfterMs`), that long plus up to half the delay — cut short by an abort;
   * then doubles the delay (up to `maxMs`). The wait is whole milliseconds, and `before` is told
   * it (with the retry's number since the last reset) before it starts: what the client announces
   * is the wait it does, not a second reckoning of it.
   */
  async wait(retryAfterMs?: number, before?: (wait: { attempt: number; delayMs: number }) => void): Promise<void> {
    const half = this.#delay / 2
    const ms = Math.ceil(Math.max(retryAfterMs ?? 0, half) + (this.hooks.random ?? Math.random)() * half)
    this.#retries += 1
    before?.({ attempt: this.#retries, delayMs: ms })
    await (this.hooks.sleep ?? sleep)(ms, this.signal)
    this.#delay = Math.min(this.maxMs, this.#delay * 2)
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve()
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
