import { BosunError, ErrorCodes, invalidArgument } from './errors.js'
import { ABORTED, unlessAborted } from './when-aborted.js'

/**
 * `createAgent({ signal })` while the agent is being built. A plugin setup awaiting a server that
 * never answers would otherwise hold the store's session handle — a JSONL lock, a PG lease — until
 * the process exits: each step of the build is raced with the signal, and an abort rejects at once
 * (`OPEN_ABORTED`) so that `createAgent` can tear down what was built and release the session
 * without waiting for the work still running. That work is abandoned, not stopped: plugins see the
 * abort on `ctx.signal` and may stop their own work.
 *
 * The signal plugins see is this build's own, linked to the caller's only until the build ends:
 * a caller's signal that aborts after `createAgent` resolved (a request's, say) tells the
 * plugins of a live agent nothing.
 */
/** The steps of a build an abort can interrupt, as `details.during` names them. */
const STEPS = {
  'start': 'before it started',
  'store-open': 'while the store opened the session',
  'new-session': 'while "newSession" described the session',
  'setup': 'during the setup of plugin',
  'after-setup': 'during the afterSetup check of plugin',
  'store-create': 'while the store created the session',
} as const

export type OpenStep = keyof typeof STEPS

export class OpenAbort {
  readonly #controller = new AbortController()
  #unlink: () => void = () => {}
  /** Whether the caller gave a signal: without one nothing can abort, and nothing is raced. */
  readonly #followed: boolean
  /** What the build is doing: the error names it. */
  #during: OpenStep = 'start'
  /** The plugin whose setup (or afterSetup check) runs, if one does. */
  #plugin: string | undefined

  constructor(readonly sessionId: string, given: AbortSignal | undefined) {
    this.#followed = given !== undefined
    if (given === undefined) return
    if (given.aborted) {
      this.#controller.abort(given.reason)
      return
    }
    const follow = () => this.#controller.abort(given.reason)
    given.addEventListener('abort', follow, { once: true })
    this.#unlink = () => given.removeEventListener('abort', follow)
  }

  /** What plugins get as `ctx.signal`. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  get aborted(): boolean {
    return this.#controller.signal.aborted
  }

  /** The build is over (built or failed): the caller's signal is no longer followed. */
  done(): void {
    this.#unlink()
  }

  /** Says what the build does now, for the error: a store's step, or a plugin's setup or check. */
  running(plugin: string | undefined, during: OpenStep): void {
    this.#plugin = plugin
    this.#during = during
  }

  /**
   * Throws {@link error} if the signal has aborted: checked before each step that would do more
   * (set up the next plugin, write to the store) for a build that was already given up.
   */
  check(): void {
    if (this.aborted) throw this.error()
  }

  /**
   * `work`'s value, or `OPEN_ABORTED` as soon as the signal aborts. What `work` yields after the
   * abort goes to `late` (a writer the store handed out after the build gave up: closed there, so
   * nothing holds the session); a late failure is swallowed.
   */
  async race<T>(work: Promise<T>, late?: (value: T) => unknown): Promise<T> {
    if (!this.#followed) return work
    const outcome = await unlessAborted(work, this.#controller.signal)
    if (outcome !== ABORTED && !this.aborted) return outcome
    if (late !== undefined) {
      const settle = outcome === ABORTED ? work.then(late) : Promise.resolve(outcome).then(late)
      settle.then(undefined, () => {})
    }
    throw this.error()
  }

  /** The error `createAgent` rejects with: what was running, and what to do. */
  error(): BosunError {
    const plugin = this.#plugin
    const during = plugin === undefined ? STEPS[this.#during] : `${STEPS[this.#during]} "${plugin}"`
    const reason: unknown = this.#controller.signal.reason
    return new BosunError(
      ErrorCodes.OPEN_ABORTED,
      `Creating the agent of session "${this.sessionId}" was aborted ${during}: the setups that had finished were torn down and the session was released. Find out why that did not finish (a server that does not answer?), then create the agent again.`,
      { ...(reason === undefined ? {} : { cause: reason }), details: { sessionId: this.sessionId, during: this.#during, ...(plugin === undefined ? {} : { plugin }) } },
    )
  }
}

/** `createAgent`'s `signal` option: an AbortSignal (checked by shape: another realm's counts too). */
export function assertSignal(signal: unknown): asserts signal is AbortSignal | undefined {
  if (signal === undefined) return
  const candidate = signal as Partial<AbortSignal> | null
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.aborted !== 'boolean' || typeof candidate.addEventListener !== 'function') {
    throw invalidArgument('createAgent(): "signal" must be an AbortSignal (e.g. AbortSignal.timeout(ms), or an AbortController\'s signal).')
  }
}
