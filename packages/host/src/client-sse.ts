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

/** Reconnect delays: `initialMs` doubling up to `maxMs`; back to `initialMs` once a frame arrives. */
export class Backoff {
  #delay: number
  constructor(readonly initialMs: number, readonly maxMs: number, readonly signal?: AbortSignal) {
    this.#delay = initialMs
  }

  reset(): void {
    this.#delay = this.initialMs
  }

  /** Waits the current delay (cut short by an abort), then doubles it. */
  async wait(): Promise<void> {
    await sleep(this.#delay, this.signal)
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
