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
    else signal.addEventListener('abort', fire, { once: true })
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
 * `signal.aborted` first. A {@link LazyAbortController} is watched without making its signal.
 */
export function onAbort(signal: AbortSource, callback: () => void): () => void {
  if (signal instanceof LazyAbortController) return signal.onAbort(callback)
  const { callbacks } = watch(signal)
  callbacks.add(callback)
  return () => callbacks.delete(callback)
}

/** What the loop races its waits against: a signal, or a turn's controller before anyone read its signal. */
export type AbortSource = AbortSignal | LazyAbortController

/**
 * A turn's abort, whose `AbortController` is made only when someone first reads `signal` (an
 * adapter, a tool, a hook): the loop itself checks `aborted` and registers callbacks here, so a
 * turn that hands its signal to nobody never pays for Node's `AbortController` (an `EventTarget`:
 * the largest fixed cost of opening a turn). Each turn still gets its own (seed 003), and the
 * semantics are the controller's: an abort before the first read gives a signal that is already
 * aborted with the same reason; a signal read once is the same object for the rest of the turn.
 * Only the owner aborts it, through {@link abort}.
 */
export class LazyAbortController {
  #controller: AbortController | undefined
  #aborted = false
  #reason: unknown
  /** Registered by {@link onAbort}; made on the first registration, dropped at the abort. */
  #callbacks: Set<() => void> | undefined

  /** Whether {@link abort} was called (without making the signal). */
  get aborted(): boolean {
    return this.#aborted
  }

  /** The abort reason, as the signal has it (an `AbortError` `DOMException` when none was given). */
  get reason(): unknown {
    return this.#reason
  }

  /** The turn's signal, made on the first read (already aborted, with the reason, if the turn was). */
  get signal(): AbortSignal {
    let controller = this.#controller
    if (controller === undefined) {
      controller = this.#controller = new AbortController()
      if (this.#aborted) controller.abort(this.#reason)
    }
    return controller.signal
  }

  /**
   * Aborts once: the signal (if it was read) first, so its `abort` listeners run as with a plain
   * controller, then the callbacks registered through {@link onAbort}, synchronously.
   */
  abort(reason?: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason
    this.#controller?.abort(this.#reason)
    const callbacks = this.#callbacks
    this.#callbacks = undefined
    if (callbacks !== undefined) for (const callback of callbacks) callback()
  }

  /** Calls `callback` once at the abort; returns the function that unregisters it. Nothing after the abort. */
  onAbort(callback: () => void): () => void {
    if (this.#aborted) return noop
    const callbacks = (this.#callbacks ??= new Set())
    callbacks.add(callback)
    return () => callbacks.delete(callback)
  }
}

const noop = (): void => {}

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
export function unlessAborted<T>(work: PromiseLike<T>, signal: AbortSource, graceMs = 0): Promise<T | typeof ABORTED> {
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
