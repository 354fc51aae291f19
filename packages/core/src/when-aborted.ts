/**
 * One abort notification per signal, shared by every waiter (a tool call, a model stream) instead
 * of an `abort` listener each: Node's EventTarget makes add/remove cost microseconds, and a
 * listener per waiter piled up on long turns until Node warned about a leak. Waiters that stop
 * waiting remove their callback, so nothing they hold outlives them.
 */
interface AbortWatch {
  promise: Promise<void>
  callbacks: Set<() => void>
  fire: () => void
}

const watches = new WeakMap<AbortSignal, AbortWatch>()
/** Signals of {@link ownedAbortController}s: their owner fires the watch, no listener is needed. */
const owned = new WeakSet<AbortSignal>()

function watch(signal: AbortSignal): AbortWatch {
  let entry = watches.get(signal)
  if (entry === undefined) {
    const callbacks = new Set<() => void>()
    let fire!: () => void
    const promise = new Promise<void>((resolve) => {
      fire = () => {
        resolve()
        for (const callback of callbacks) callback()
        callbacks.clear()
      }
    })
    entry = { promise, callbacks, fire }
    watches.set(signal, entry)
    if (signal.aborted) fire()
    else if (!owned.has(signal)) signal.addEventListener('abort', fire, { once: true })
  }
  return entry
}

/** Resolves when `signal` aborts (at once if it has). For `Promise.race` with other work. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return watch(signal).promise
}

/**
 * Calls `callback` once when `signal` aborts (synchronously within the abort, like a listener);
 * returns the function that unregisters it. A signal that has already aborted calls nothing: check
 * `signal.aborted` first.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  const { callbacks } = watch(signal)
  callbacks.add(callback)
  return () => callbacks.delete(callback)
}

/**
 * A controller whose abort notification is fired by its owner's `abort()` rather than by an
 * `abort` listener: the agent makes one per turn, and a listener on Node's EventTarget costs more
 * than the rest of opening the turn. Only the owner may abort the controller (through this `abort`).
 */
export function ownedAbortController(): { signal: AbortSignal; abort(reason?: unknown): void } {
  const controller = new AbortController()
  // The watch (a promise and a set) is made only if someone waits on this signal: most turns
  // never need it, and the agent makes a controller per turn.
  owned.add(controller.signal)
  return {
    signal: controller.signal,
    abort(reason?: unknown) {
      if (controller.signal.aborted) return
      controller.abort(reason)
      watches.get(controller.signal)?.fire()
    },
  }
}

/** What {@link unlessAborted} resolves to when the signal aborted first. */
export const ABORTED: unique symbol = Symbol('bosun.aborted')

/**
 * `work`'s outcome, or {@link ABORTED} as soon as `signal` aborts if that comes first, so that a
 * hook that ignores the signal cannot hold an aborted turn (seed 000: abort interrupts every
 * asynchronous operation of the turn; `close()` would otherwise wait for it forever). With
 * `graceMs`, work still running at the abort gets that long to settle first (a `tool/result` hook
 * finishing the result of a tool that honoured the abort). A late result of `work` is dropped and
 * a late failure swallowed.
 */
export function unlessAborted<T>(work: PromiseLike<T>, signal: AbortSignal, graceMs = 0): Promise<T | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const giveUp = () => {
      if (graceMs <= 0) resolve(ABORTED)
      else timer = setTimeout(() => resolve(ABORTED), graceMs)
    }
    const stop = signal.aborted ? (giveUp(), () => {}) : onAbort(signal, giveUp)
    Promise.resolve(work).then(
      (value) => {
        stop()
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        stop()
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
