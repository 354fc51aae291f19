import { ModelError, serializeError, stepRequestCount } from '@bosun/core'
import type { ModelChunk, StreamContext } from '@bosun/core'
import type { RetryPolicy } from './options.js'
import { decide } from './policy.js'
import { wait } from './wait.js'

/**
 * Wraps one model call's stream so that a failed attempt is sent again, within the same step.
 *
 * Each attempt's chunks are passed on as they arrive (streaming is kept). When an attempt fails —
 * an error thrown while iterating it, or, with `EMPTY_RESPONSE` in `retryOn`, an attempt that
 * ended without any content or finish chunk — {@link decide} picks the wait; the wrapper appends
 * `llm/retry {turn, step, attempt, delayMs, error}` (`attempt` numbers the request about to be sent
 * among all the step's requests: 2 for the first retry, more when an outer wrapper re-sent it
 * before), waits (abort-aware), and iterates `context.open()`. The `maxAttempts` budget counts
 * this wrapper's own attempts: a request an outer wrapper sends again gets a fresh budget. The core
 * resets the step's assembled message on that `llm/retry`, so the failed attempt's chunks stay in
 * the log but never reach the history. An abort during the wait ends the stream: no request is sent.
 */
export function retryingStream(first: AsyncIterable<ModelChunk>, context: StreamContext, policy: RetryPolicy): AsyncIterable<ModelChunk> {
  const { turn, step, signal, session } = context
  return (async function* retrying(): AsyncGenerator<ModelChunk> {
    let stream = first
    for (let attempt = 1; ; attempt++) {
      let delivered = false
      let failure: unknown
      try {
        for await (const chunk of stream) {
          if (chunk.type !== 'usage') delivered = true
          yield chunk
        }
      } catch (error) {
        failure = error
      }
      if (signal.aborted) {
        if (failure !== undefined) throw failure
        return
      }
      const empty = failure === undefined
      if (empty) {
        if (delivered || !policy.retryOn.has('EMPTY_RESPONSE')) return
        failure = new ModelError('EMPTY_RESPONSE', `The model (${context.adapter.name}) ended attempt ${attempt} without any content or finish reason.`)
      }
      const decision = decide(failure, attempt, policy)
      if (!decision.retry) {
        // An empty last attempt ends quietly: the core reports EMPTY_RESPONSE itself.
        if (empty) return
        throw failure
      }
      session.append('llm/retry', { turn, step, attempt: stepRequestCount(context) + 1, delayMs: decision.delayMs, error: serializeError(failure) })
      await wait(decision.delayMs, signal)
      if (signal.aborted) return
      stream = context.open()
    }
  })()
}
