import type { BosunError } from '@bosun/core'

/**
 * One batch: the lines taken from the queue when its round wrote them; `observed` once a `flush()`
 * awaits it, so that its failure reaches a caller.
 */
export interface Batch {
  done: Promise<void>
  observed: boolean
  /** Settles `done` (before its own bookkeeping runs): `undefined` for durable, else the error. */
  settle: (error?: BosunError) => void
  text: string
  count: number
  bytes: number
}

/**
 * A new batch, empty until its round fills it. `settle` settles `done` through `then`: the
 * writer's bookkeeping (`onDurable`, `onFailed`) runs before anyone awaiting `done` resumes.
 */
export function newBatch(onDurable: () => void, onFailed: (batch: Batch, error: BosunError) => void): Batch {
  let settle!: (error?: BosunError) => void
  const outcome = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error))
  })
  const batch: Batch = { done: outcome, observed: false, settle, text: '', count: 0, bytes: 0 }
  batch.done = outcome.then(onDurable, (error: BosunError) => {
    onFailed(batch, error)
    throw error
  })
  // The failure is either awaited by a flush or kept by the writer for the next one: never an unhandled rejection.
  batch.done.catch(() => {})
  return batch
}
