/** How often a cluster host says its poll still fails, while it does. */
export const POLL_OUTAGE_LOG_EVERY_MS = 60_000

/** An error's own words, without its stack: what the store says failed (its message names the database, never a credential). */
const said = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '')

/**
 * A store's failure as a log line prints it: a `STORE` error (the database unreachable, a statement
 * refused) by its message, which says what failed, where and what to check — its stack says
 * nothing an operator can act on, and an outage fails every session's round at once; any other
 * error whole (stack, causes), as a bug needs it.
 */
export function storeFailure(error: unknown): unknown {
  return error instanceof Error && (error as { code?: unknown }).code === 'STORE' ? said(error) : error
}

const seconds = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))} s`

/**
 * What a cluster host logs of its poll (expired leases, running sessions) while the store fails:
 * one line when the polls start failing (what failed, what to check, that it keeps polling), a
 * short line every {@link POLL_OUTAGE_LOG_EVERY_MS} while they still fail, one line when a poll
 * works again. Before, every poll of a PostgreSQL outage logged two full stack traces — ten lines
 * a second at the default `pollIntervalMs`, burying whatever else the host said.
 */
export class PollOutage {
  /** When the failing streak started (`now()`), undefined while polls work. */
  #since: number | undefined
  #failures = 0
  #lastLog = 0

  constructor(
    readonly pollMs: number,
    readonly now: () => number = Date.now,
    readonly logEveryMs: number = POLL_OUTAGE_LOG_EVERY_MS,
  ) {}

  /**
   * A poll failed with `error`: the parts of the line to log (`logHost`), if this one is logged.
   * An error that is no store's failure (a bug) is printed whole at the streak's start, stack and all.
   */
  failed(error: unknown): unknown[] | undefined {
    const now = this.now()
    this.#failures++
    if (this.#since === undefined) {
      this.#since = now
      this.#lastLog = now
      const line = `[bosun host] the cluster's poll cannot reach the store: ${said(error)}. Check that the database is up and reachable from this host. `
        + `Until it is, this host takes over no dead host's session and may miss status changes of sessions other hosts run; `
        + `it keeps polling every ${this.pollMs} ms and says so once a poll works again (and every ${seconds(this.logEveryMs)} while they fail).`
      return storeFailure(error) === error ? [line, error] : [line]
    }
    if (now - this.#lastLog < this.logEveryMs) return undefined
    this.#lastLog = now
    return [`[bosun host] the cluster's poll still cannot reach the store, for ${seconds(now - this.#since)} (${this.#failures} failed polls): ${said(error)}.`]
  }

  /** A poll worked: the line to log when it ends a failing streak. */
  succeeded(): string | undefined {
    if (this.#since === undefined) return undefined
    const line = `[bosun host] the cluster's poll reaches the store again, after ${seconds(this.now() - this.#since)} and ${this.#failures} failed poll${this.#failures === 1 ? '' : 's'}.`
    this.#since = undefined
    this.#failures = 0
    return line
  }
}
