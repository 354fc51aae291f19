import { BosunError, ErrorCodes } from '../errors.js'
import type { StreamContext } from '../hooks.js'
import type { ModelChunk, ModelRequest } from '../model.js'

type Stream = AsyncIterable<ModelChunk>
type StreamHook = import('../hooks.js').AgentHooks['llmStream']
/** What every tap's context shares: all of {@link StreamContext} but the request and `open`. */
export type StreamBase = Omit<StreamContext, 'request' | 'open'>

/**
 * Runs the `llm/stream` taps as the waterfall would — in stage order, each wrapping what the one
 * before returned, `undefined` passing the stream on, `call`, `tap`, `result` and `error`
 * interceptors notified (`context: true` taps are not supported) — but
 * gives each tap its own context, whose `open(request?)` sends the request through the taps that
 * run before it, the ones inside it. A re-send by an outer wrapper (compaction after a
 * context-window error) is thus retried by an inner retry wrapper, and filtered by an inner
 * filter, like the first attempt. With one shared context, `open` could only be the bare adapter.
 */
export function wrapStream(hook: StreamHook, send: (request: ModelRequest) => Stream, base: StreamBase, request: ModelRequest): Promise<Stream> {
  // A copy: tapable inserts a later tap into its array in place, which would shift the indices the
  // `open` of each context refers to.
  const taps = [...hook.taps]
  const interceptors = hook.interceptors.filter((interceptor) => interceptor.call || interceptor.tap || interceptor.result || interceptor.error)

  /** The stream of `next` wrapped by the first `count` taps. */
  async function through(count: number, next: ModelRequest): Promise<Stream> {
    let stream = send(next)
    if (count === 0) return stream
    const contexts = taps.slice(0, count).map((_, index): StreamContext => ({ ...base, request: next, open: (again = next) => reopen(index, again) }))
    // The waterfall's `call` interceptors see its first arguments: the bare stream, the first context.
    for (const interceptor of interceptors) interceptor.call?.(stream, contexts[0]!)
    try {
      for (let index = 0; index < count; index++) {
        const tap = taps[index]!
        for (const interceptor of interceptors) interceptor.tap?.(tap)
        const result = (await callTap(tap, stream, contexts[index]!)) as Stream | undefined
        if (result !== undefined) stream = result
      }
    } catch (error) {
      for (const interceptor of interceptors) interceptor.error?.(error as Error)
      throw error
    }
    for (const interceptor of interceptors) interceptor.result?.(stream)
    if (typeof stream?.[Symbol.asyncIterator] !== 'function') {
      throw new BosunError(ErrorCodes.INVALID_HOOK_RESULT, 'The "llm/stream" hook must return an async iterable of chunks.')
    }
    return stream
  }

  /** `open` of the tap at `index`: lazy, like the adapter's stream (sent when first iterated). */
  function reopen(index: number, next: ModelRequest): Stream {
    if (index === 0) return send(next)
    return lazyStream(() => through(index, next))
  }

  return through(taps.length, request)
}

/** Calls a (registered, hence error-wrapping) tap function of any tapable kind. */
function callTap(tap: StreamHook['taps'][number], stream: Stream, context: StreamContext): unknown {
  if (tap.type !== 'async') return tap.fn(stream, context)
  return new Promise((resolve, reject) => tap.fn(stream, context, (error: unknown, result?: unknown) => (error ? reject(error) : resolve(result))))
}

/** An async iterable that builds its stream when first iterated. */
function lazyStream(build: () => Promise<Stream>): Stream {
  return {
    [Symbol.asyncIterator]() {
      let iterator: Promise<AsyncIterator<ModelChunk>> | undefined
      const get = () => (iterator ??= build().then((stream) => stream[Symbol.asyncIterator]()))
      return {
        next: async () => (await get()).next(),
        throw: async (error?: unknown) => {
          const inner = await get()
          if (inner.throw) return inner.throw(error)
          throw error
        },
        return: async (value?: unknown) => {
          if (iterator === undefined) return { done: true, value: undefined }
          const inner = await iterator.catch(() => undefined) // a failed build was reported by next()
          return inner?.return ? inner.return(value) : { done: true, value: undefined }
        },
      }
    },
  }
}
