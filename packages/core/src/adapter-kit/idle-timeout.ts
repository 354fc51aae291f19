import { ModelError } from '../model.js'

/**
 * Wraps a stream so that a connection that goes silent for `idleMs` (no chunk at all) fails with
 * a `TIMEOUT` ModelError instead of hanging the turn. The timer restarts at every item; the
 * source is asked to `return()` on timeout.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, idleMs: number, what: string): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]()
  let timer: NodeJS.Timeout | undefined
  try {
    while (true) {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ModelError('TIMEOUT', `${what} sent nothing for ${idleMs} ms; the connection looks stalled.`)), idleMs)
      })
      const next = await Promise.race([iterator.next(), timeout])
      clearTimeout(timer)
      if (next.done) return
      yield next.value
    }
  } catch (error) {
    void Promise.resolve(iterator.return?.()).catch(() => {})
    throw error
  } finally {
    clearTimeout(timer)
  }
}
