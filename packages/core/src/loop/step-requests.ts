import type { StreamContext } from '../hooks.js'

/**
 * How many model requests the running step has sent so far: 1 plus the `llm/retry` events logged
 * since its `step/start`. A stream wrapper that sends the request again logs `llm/retry` with
 * `attempt: stepRequestCount(context) + 1`, so that attempts number the step's requests in order
 * whichever wrapper re-sends them (retry inside, compaction outside).
 *
 * Reads the log back to the step's `step/start`: the step's own events, on the failure path only.
 */
export function stepRequestCount({ session, turn, step }: Pick<StreamContext, 'session' | 'turn' | 'step'>): number {
  let requests = 1
  const events = session.events
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    const data = event.data as { turn?: number; step?: number }
    if (event.type === 'step/start' && data.turn === turn && data.step === step) break
    if (event.type === 'llm/retry' && data.turn === turn && data.step === step) requests++
  }
  return requests
}
