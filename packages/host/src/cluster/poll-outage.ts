/** How often a cluster host says its poll still fails, while it does. */
export const POLL_OUTAGE_LOG_EVERY_MS = 60_000

/** An error's own words, without its stack: what the store says failed (its message names the database, never a credential). */
const said = (error: unknown): string => (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '')

/**
 * A store's failure as a log line prints it: a `STORE` error (the database unreachable, a statement
 * refused) or an `UNSUPPORTED_LOG_VERSION` (a schema newer than this build) by its message, which says what failed, where and what to check — its stack says
 * nothing an operator can act on, and an outage fails every session's round at once; any other
 * error whole (stack, causes), as a bug needs it.
 */
export function storeFailure(error: unknown): unknown {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  // UNSUPPORTED_LOG_VERSION: the store's schema is newer than this build; its message says to upgrade.
  return code === 'STORE' || code === 'UNSUPPORTED_LOG_VERSION' ? said(error) : error
}

const seconds = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))} s`

/**
 * The SQLSTATEs of a database that answered and refused this host's settings: a wrong user or
 * password, no such database, a missing privilege. Waiting does not mend them, unlike an outage.
 */
const REFUSED_SETTINGS = new Set(['28000', '28P01', '3D000', '42501'])

/**
 * Whether `error` is the store refusing this host's settings rather than an outage: one of
 * {@link REFUSED_SETTINGS}, a schema that is not the store's (`details.tables`: another
 * application's tables there), or a layout newer than this build (`UNSUPPORTED_LOG_VERSION`).
 */
export function refusedSettings(error: unknown): boolean {
  const { code, details } = (error ?? {}) as { code?: unknown; details?: { sqlState?: unknown; tables?: unknown } }
  if (code === 'UNSUPPORTED_LOG_VERSION') return true
  return code === 'STORE' && (REFUSED_SETTINGS.has(String(details?.sqlState)) || Array.isArray(details?.tables))
}

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
      // A refusal of this host's settings is no outage: "check that the database is up" sent the
      // operator of a wrong password to look at a database that was up all along.
      const line = refusedSettings(error)
        ? `[bosun host] the cluster's poll is refused by the store: ${said(error)}. The database answered: this is this host's settings or the database's, not an outage, and waiting alone will not mend it. `
          + `Fix what it says: a setting of this host (the URL's user, password or database, the schema) needs a restart of this host; a grant or a database made on the server is picked up by the next poll. Until then this host serves no session (every request that needs the store fails), takes over no dead host's session, `
          + `and keeps polling every ${this.pollMs} ms (saying so every ${seconds(this.logEveryMs)}).`
        : `[bosun host] the cluster's poll cannot reach the store: ${said(error)}. Check that the database is up and reachable from this host. `
          + `Until it is, this host takes over no dead host's session and may miss status changes of sessions other hosts run; `
          + `it keeps polling every ${this.pollMs} ms and says so once a poll works again (and every ${seconds(this.logEveryMs)} while they fail).`
      return storeFailure(error) === error ? [line, error] : [line]
    }
    if (now - this.#lastLog < this.logEveryMs) return undefined
    this.#lastLog = now
    const still = refusedSettings(error) ? 'is still refused by the store' : 'still cannot reach the store'
    return [`[bosun host] the cluster's poll ${still}, for ${seconds(now - this.#since)} (${this.#failures} failed polls): ${said(error)}.`]
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
