import { onAbort, type AbortSource } from '../when-aborted.js'

/**
 * Feeds each item of `source` to `onItem`, but stops as soon as `signal` aborts even if the source
 * is stuck waiting (an adapter that ignores the signal cannot hang the turn). On abort, or when
 * `onItem` throws, the source's iterator is asked to `return()`, without waiting for it.
 *
 * Driven by callbacks on each `next()` rather than an `await Promise.race([next, aborted])` per
 * item: the race cost a promise, an array and a reaction on the never-settling abort promise for
 * every chunk of every model response (the reactions piled up for the length of the stream).
 *
 * The abort is seen through the signal's watch (`onAbort`), which settles this loop within the
 * abort itself, so a chunk is checked against `settled` alone: no `aborted` read per chunk. The
 * loop passes its `TurnAbort` (a plain field; see when-aborted.ts for why not the signal's own
 * getter). The abort state is read once more after the watch is registered,
 * for an abort that came while the source was being opened (a stream wrapper's first read logs
 * `request/context`, and a session observer may abort then).
 */
export function forEachUntilAborted<T>(source: AsyncIterable<T>, signal: AbortSource, onItem: (item: T) => void): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  const iterator = source[Symbol.asyncIterator]()
  return new Promise<void>((resolve, reject) => {
    let settled = false
    let stopWatching = (): void => {}
    const settle = (error?: unknown, exhausted = false): void => {
      if (settled) return
      settled = true
      stopWatching()
      if (!exhausted) {
        try {
          void Promise.resolve(iterator.return?.()).catch(() => {})
        } catch {
          // A source that cannot be closed is abandoned either way.
        }
      }
      if (error === undefined) resolve()
      else reject(error)
    }
    const abortNow = (): void => settle()
    const onResult = (result: IteratorResult<T>): void => {
      // A chunk that arrives after the abort is dropped: the abort settled the loop.
      if (settled) return
      try {
        // A hand-written iterator may resolve to anything: reading `done` can throw too.
        if (result.done) return settle(undefined, true)
        onItem(result.value)
      } catch (error) {
        return settle(error)
      }
      pull()
    }
    const onError = (error: unknown): void => settle(error ?? new Error('The model stream failed without an error value.'))
    const pull = (): void => {
      let next: Promise<IteratorResult<T>>
      try {
        next = iterator.next()
      } catch (error) {
        return settle(error ?? new Error('The model stream failed without an error value.'))
      }
      void Promise.resolve(next).then(onResult, onError)
    }
    stopWatching = onAbort(signal, abortNow)
    // Aborted while the iterator was being made: the watch, made after the abort, calls nothing.
    if (signal.aborted) return settle()
    pull()
  })
}
