/** The most a stream hands its connection at once: the bytes `limits.streamStallMs` waits for the client to take. */
const STALL_SLICE_BYTES = 64 * 1024

/**
 * How a stream read in-process (no socket: `host.fetch`, `app.request`) ends when its reader has
 * not taken the last chunk within `limits.streamStallMs`: `read()` rejects with it. Not a normal
 * end (`done`), which a consumer could not tell from the host ending the stream; the consumer
 * resumes from the last seq it read (`?after`, `Last-Event-ID`), nothing lost.
 */
export class StreamStalledError extends Error {
  readonly code = 'stream-stalled'
  constructor(readonly stallMs: number) {
    super(`The stream was closed: its reader did not take what it was sent within ${stallMs} ms (limits.streamStallMs). Open it again from the last seq read (Last-Event-ID or ?after) to resume; read the stream as it comes, or raise limits.streamStallMs.`)
    this.name = 'StreamStalledError'
  }
}

/**
 * `body`, passed through as the client reads it, calling `release` once when it ends or is
 * canceled — or when the client has not taken the last chunk within `stallMs`.
 *
 * Each stream is pulled (nothing is read from the log before the client can take it), so what it
 * holds beyond its cursor is one read — at most `limits.streamBatch` events — plus the socket's
 * buffers. A client that stops reading lets those buffers fill; the server then waits for the
 * socket to drain before it pulls again, and, without a bound, waited for good: the stream kept its
 * slot, its hold on the session (never retired) and its connection for as long as the client kept
 * the socket open. The next pull must come within `stallMs` of a chunk handed over; else the
 * stream is closed — the source let go (`cancel`), the slot released — and, with a connection
 * (`close`), the connection destroyed: the client, reconnecting with `Last-Event-ID` (the id of the
 * last whole frame it read), resumes with nothing lost. Without one (in-process), the stream ends
 * with a {@link StreamStalledError}. A pull that waits for the log (nothing new yet) is not a stall.
 *
 * One timer per stream, made at the first chunk and `refresh()`ed at each later one (a stream
 * pulls once per frame batch: a timer made and cleared each time was a cost on every delta); it
 * acts only while a chunk is outstanding — between a pull's start and its next chunk the client
 * has taken everything, and a firing then does nothing.
 */
export function releasedAtEnd(body: ReadableStream<Uint8Array>, release: () => void, stallMs: number, close: (() => void) | undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let stall: ReturnType<typeof setTimeout> | undefined
  /** A chunk was handed over and the client has not pulled since. */
  let outstanding = false
  let stalled = false
  /** What is left of the last read, handed over a slice at a time. */
  let rest: Uint8Array | undefined
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const onStall = (): void => {
    if (!outstanding || stalled) return
    stalled = true
    rest = undefined
    release()
    reader.cancel().catch(() => {})
    if (close === undefined) {
      controller.error(new StreamStalledError(stallMs))
      return
    }
    controller.close()
    close()
  }
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    async pull() {
      outstanding = false
      if (rest === undefined) {
        let read: Awaited<ReturnType<typeof reader.read>>
        try {
          read = await reader.read()
        } catch (error) {
          release()
          if (!stalled) controller.error(error)
          return
        }
        if (stalled) return
        if (read.done) {
          clearTimeout(stall)
          release()
          controller.close()
          return
        }
        rest = read.value
      }
      // A slice at a time: the stall is then the client's not taking STALL_SLICE_BYTES within
      // stallMs, whatever a read held (a replay's batch of long events can be megabytes).
      controller.enqueue(rest.subarray(0, STALL_SLICE_BYTES))
      rest = rest.length > STALL_SLICE_BYTES ? rest.subarray(STALL_SLICE_BYTES) : undefined
      outstanding = true
      if (stall === undefined) {
        stall = setTimeout(onStall, stallMs)
        stall.unref?.()
      } else stall.refresh()
    },
    cancel(reason) {
      clearTimeout(stall)
      rest = undefined
      release()
      return reader.cancel(reason)
    },
  }, { highWaterMark: 0 })
}
