/**
 * One abort notification per signal, shared by every waiter (a tool call, a model stream) instead
 * of an `abort` listener each: Node's EventTarget makes add/remove cost microseconds, and a
 * listener per waiter piled up on long turns until Node warned about a leak. Waiters that stop
 * waiting remove their callback, so nothing they hold outlives them.
 */
interface AbortWatch {
  /** Made by the first {@link whenAborted}: most signals are only waited on through callbacks. */
  promise: Promise<void> | undefined
  callbacks: Set<() => void>
  fired: boolean
}

/**
 * An {@link ownedAbortController}'s signal keeps its watch in this own property (null until
 * someone waits): the agent makes one such signal per turn, and an entry per turn in a WeakMap
 * and a WeakSet (ephemeron tables every collection must process) cost more than the watch. A
 * signal from elsewhere is not ours to change: its watch is kept in {@link foreignWatches}.
 */
const WATCH: unique symbol = Symbol('bosun.abort-watch')
type OwnedSignal = AbortSignal & { [WATCH]: AbortWatch | null }
const foreignWatches = new WeakMap<AbortSignal, AbortWatch>()

function isOwned(signal: AbortSignal): signal is OwnedSignal {
  return WATCH in signal
}

function fire(entry: AbortWatch): void {
  if (entry.fired) return
  entry.fired = true
  for (const callback of entry.callbacks) callback()
  entry.callbacks.clear()
}

function watch(signal: AbortSignal): AbortWatch {
  const owned = isOwned(signal)
  let entry = owned ? signal[WATCH] : foreignWatches.get(signal)
  if (entry === undefined || entry === null) {
    const made: AbortWatch = { promise: undefined, callbacks: new Set(), fired: false }
    entry = made
    if (owned) signal[WATCH] = made
    else foreignWatches.set(signal, made)
    if (signal.aborted) fire(made)
    else if (!owned) signal.addEventListener('abort', () => fire(made), { once: true })
  }
  return entry
}

/** Resolves when `signal` aborts (at once if it has). For `Promise.race` with other work. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  const entry = watch(signal)
  if (entry.promise === undefined) {
    entry.promise = entry.fired ? Promise.resolve() : new Promise<void>((resolve) => entry.callbacks.add(resolve))
  }
  return entry.promise
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
  // The watch (a set of callbacks) is made only if someone waits on this signal: most turns
  // never need it, and the agent makes a controller per turn.
  const signal = controller.signal as OwnedSignal
  signal[WATCH] = null
  return {
    signal,
    abort(reason?: unknown) {
      if (signal.aborted) return
      controller.abort(reason)
      const entry = signal[WATCH]
      if (entry !== null) fire(entry)
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
