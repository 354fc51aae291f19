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

/**
 * A controller whose abort promise is resolved by its owner's `abort()` rather than by an `abort`
 * listener: the agent makes one per turn, and a listener on Node's EventTarget costs more than the
 * rest of opening the turn. Only the owner may abort the controller (through this `abort`).
 */
export function ownedAbortController(): { signal: AbortSignal; abort(reason?: unknown): void } {
  const controller = new AbortController()
  let resolve!: () => void
  promises.set(controller.signal, new Promise<void>((r) => (resolve = r)))
  return {
    signal: controller.signal,
    abort(reason?: unknown) {
      controller.abort(reason)
      resolve()
    },
  }
}
