import { BosunError, serializeError, stepRequestCount } from '@bosun/core'
import type { ModelChunk, StreamContext } from '@bosun/core'
import type { Compactor } from './compactor.js'

/**
 * Wraps a model call so that a `CONTEXT_WINDOW_EXCEEDED` failure is answered once: compact the
 * history, log `llm/retry` (the core then restarts the step's assembled message), and send the
 * request again with the compacted history (`context.surface.messages`). If nothing could be
 * compacted, or the second request fails too, the error ends the turn as usual.
 */
export function recoverContextWindow(stream: AsyncIterable<ModelChunk>, context: StreamContext, compactor: Compactor, summarizer = context.adapter): AsyncIterable<ModelChunk> {
  const { turn, step, signal, session, surface } = context
  return (async function* recovering(): AsyncGenerator<ModelChunk> {
    try {
      yield* stream
      return
    } catch (error) {
      if (signal.aborted || !BosunError.is(error, 'CONTEXT_WINDOW_EXCEEDED')) throw error
      const result = await compactor.run({ reason: 'context-window', surface, adapter: summarizer, signal })
      if (!result.ok || signal.aborted) throw error
      session.append('llm/retry', { turn, step, attempt: stepRequestCount(context) + 1, delayMs: 0, error: serializeError(error) })
    }
    yield* context.open({ ...context.request, messages: surface.messages })
  })()
}
