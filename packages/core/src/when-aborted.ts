/**
 * One promise per signal that resolves when it aborts. Waiters share it instead of each adding an
 * `abort` listener: Node's EventTarget makes add/remove cost microseconds, and a listener per
 * waiter (a tool call, a model stream) piled up on long turns until Node warned about a leak.
 */
const promises = new WeakMap<AbortSignal, Promise<void>>()

export function whenAborted(signal: AbortSignal): Promise<void> {
  let promise = promises.get(signal)
  if (promise === undefined) {
    promise = signal.aborted
      ? Promise.resolve()
      : new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    promises.set(signal, promise)
  }
  return promise
}
