/**
 * The SSE plumbing the host's streams share: frame text, and one pull loop — send the first frame
 * (hello), then what the source has, else wait for a signal or send a keep-alive comment — so the
 * session stream, the host stream and the AI SDK stream differ only in what they read.
 */
export const encoder = new TextEncoder()

/** One SSE frame: `event:`, optional `id:`, `data:` as JSON. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`
}

export interface SseSource {
  /** Sent once, before anything else (the `hello` frame, with the `retry:` hint). */
  first?: () => string | Promise<string>
  /** Frames to send now; '' when caught up; null when the stream is over. */
  read(): string | null | Promise<string | null>
  /** Waits for a signal (new data) or `ms`; true when it timed out. */
  wait(ms: number): Promise<boolean>
  /** True once the stream must close (client gone, host closing). */
  ended(): boolean
  /** Releases the source (called once the stream closes or is canceled). */
  end(): void
  /** After a signal, before reading: e.g. let a burst of appends land for one write. */
  settle?: () => Promise<void>
  /** The frames sent last, once the source has ended (a removed session's `session.removed`); '' for none. */
  final?: () => string
}

/** A pull-driven SSE body over `source` (nothing is buffered ahead of the client). */
export function sseStream(source: SseSource, keepAliveMs: number): ReadableStream<Uint8Array> {
  let firstSent = source.first === undefined
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (!firstSent) {
        firstSent = true
        controller.enqueue(encoder.encode(await source.first!()))
        return
      }
      for (;;) {
        const out = source.ended() ? null : await source.read()
        if (out === null) {
          const last = source.final?.() ?? ''
          if (last !== '') controller.enqueue(encoder.encode(last))
          source.end()
          controller.close()
          return
        }
        if (out !== '') {
          controller.enqueue(encoder.encode(out))
          return
        }
        const timedOut = await source.wait(keepAliveMs)
        if (timedOut && !source.ended()) {
          controller.enqueue(encoder.encode(': keep-alive\n\n'))
          return
        }
        if (!timedOut) await source.settle?.()
      }
    },
    cancel: () => source.end(),
  }, { highWaterMark: 0 })
}
