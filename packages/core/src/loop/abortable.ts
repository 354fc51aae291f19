/**
 * Feeds each item of `source` to `onItem`, but stops as soon as `signal` aborts even if the source
 * is stuck waiting (an adapter that ignores the signal cannot hang the turn). On abort, or when
 * `onItem` throws, the source's iterator is asked to `return()`, without waiting for it.
 *
 * A callback rather than an async generator: a generator layer costs two more microtask hops
 * for every chunk of every model response.
 */
export async function forEachUntilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal, onItem: (item: T) => void): Promise<void> {
  if (signal.aborted) return
  const iterator = source[Symbol.asyncIterator]()
  let onAbort: () => void = () => {}
  const aborted = new Promise<{ done: true; value: undefined }>((resolve) => {
    onAbort = () => resolve({ done: true, value: undefined })
    signal.addEventListener('abort', onAbort, { once: true })
  })
  let finished = false
  try {
    while (true) {
      const next = await Promise.race([iterator.next(), aborted])
      if (next.done) {
        finished = !signal.aborted
        return
      }
      onItem(next.value)
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {})
  }
}
