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
 * A turn's abort: its `AbortSignal` (what adapters, tools and hooks receive) and, beside it, the
 * state the loop reads — `aborted` and the watch (null until someone waits). Kept here, not on
 * the signal: in Node 20 every AbortSignal gets a map (hidden class) of its own (Node builds it
 * as an EventTarget and then changes its prototype), so each property added to a signal built a
 * new map (~2,000 instructions a property in figure 7), and each read of the signal's `aborted`
 * (Node's getter and its brand check) or of a property stored on it met a map no inline cache
 * had seen (megamorphic, ~0.4 µs on a cold signal in figure 7; the loop read it 18 times a
 * turn). Every TurnAbort has one shape. Only the owner aborts it, through {@link TurnAbort.abort}.
 */
export class TurnAbort {
  readonly signal: AbortSignal
  /** Mirrors `signal.aborted`: set before the controller aborts, so its listeners see both true. */
  aborted = false
  /** @internal */
  watch: AbortWatch | null = null
  readonly #controller: AbortController

  constructor() {
    this.#controller = new AbortController()
    this.signal = this.#controller.signal
  }

  abort(reason?: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.#controller.abort(reason)
    if (this.watch !== null) fire(this.watch)
  }
}

/** What the loop waits on: the turn's own {@link TurnAbort}, or a signal from elsewhere. */
export type AbortSource = AbortSignal | TurnAbort

/** A signal from elsewhere is not ours to change: its watch is kept here, with one listener. */
const foreignWatches = new WeakMap<AbortSignal, AbortWatch>()

function fire(entry: AbortWatch): void {
  if (entry.fired) return
  entry.fired = true
  for (const callback of entry.callbacks) callback()
  entry.callbacks.clear()
}

function watch(source: AbortSource): AbortWatch {
  if (source instanceof TurnAbort) {
    if (source.watch === null) {
      source.watch = { promise: undefined, callbacks: new Set(), fired: false }
      if (source.aborted) fire(source.watch)
    }
    return source.watch
  }
  let entry = foreignWatches.get(source)
  if (entry === undefined) {
    const made: AbortWatch = { promise: undefined, callbacks: new Set(), fired: false }
    entry = made
    foreignWatches.set(source, made)
    if (source.aborted) fire(made)
    else source.addEventListener('abort', () => fire(made), { once: true })
  }
  return entry
}

/** Resolves when `signal` aborts (at once if it has). For `Promise.race` with other work. */
export function whenAborted(signal: AbortSource): Promise<void> {
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
export function onAbort(signal: AbortSource, callback: () => void): () => void {
  const { callbacks } = watch(signal)
  callbacks.add(callback)
  return () => callbacks.delete(callback)
}

/**
 * A controller whose abort notification is fired by its owner's `abort()` rather than by an
 * `abort` listener: the agent makes one per turn, and a listener on Node's EventTarget costs more
 * than the rest of opening the turn.
 */
export function ownedAbortController(): TurnAbort {
  return new TurnAbort()
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
