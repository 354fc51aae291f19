import { HostError } from './errors.js'

/** What `retry-after` (seconds) tells a client whose session's open outlasted `limits.openTimeoutMs`. */
const OPEN_RETRY_AFTER_S = 5

/**
 * `503 session-unavailable`: the open of `id` did not finish within `ms`. `plugins`: the plugins
 * the host builds each agent with, when it knows them (`config`, `agent`; not an `agentFactory`'s)
 * — which one hangs, nothing tells, so the message names them all as what to check.
 */
export function openTimedOut(id: string, ms: number, plugins: readonly string[] = []): HostError {
  const check = plugins.length === 0 ? 'the setups of the plugins the session\'s agent uses' : `the setups of its plugins (${plugins.join(', ')})`
  return new HostError(
    'session-unavailable',
    `Opening session "${id}" did not finish within ${ms} ms (limits.openTimeoutMs): a plugin's setup or a hook run at the open did not settle, or the store did not answer. Check the host's log and ${check}, then retry in ${OPEN_RETRY_AFTER_S} s.`,
    { id, retryAfter: OPEN_RETRY_AFTER_S },
  )
}

/** The names of a config's or `agent` option's plugin entries (a name or path, a plugin, or either with its options), those it can tell. */
export function pluginNamesOf(entries: unknown): string[] {
  if (!Array.isArray(entries)) return []
  return entries.flatMap((entry: unknown) => {
    const plugin: unknown = Array.isArray(entry) ? entry[0] : entry
    if (typeof plugin === 'string') return [plugin]
    const name = typeof plugin === 'object' && plugin !== null ? (plugin as { name?: unknown }).name : undefined
    return typeof name === 'string' ? [name] : []
  })
}

/**
 * One open's bound, shared by the wait ({@link withinOpenTimeout}) and the open itself. When the
 * wait gives up, `expired` is set — the open closes what it still opens late — and `signal`
 * aborts: the agent's build (`createAgent({ signal })`) stops waiting for a setup that never
 * settles and releases the session's lock or lease at the timeout, not when the process exits.
 */
export class OpenDeadline {
  expired = false
  readonly #controller = new AbortController()

  /** What the host's agent factory is given, for `createAgent({ signal })`. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  expire(reason: HostError): void {
    this.expired = true
    this.#controller.abort(reason)
  }
}

/**
 * `opening`, or `openTimedOut` once `ms` have passed: a plugin setup or hook that never settles
 * must not hold a request, a takeover or a mail round for good. The deadline expires then (see
 * {@link OpenDeadline}).
 */
export async function withinOpenTimeout<T>(id: string, ms: number, opening: Promise<T>, deadline: OpenDeadline, plugins: readonly string[] = []): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = openTimedOut(id, ms, plugins)
      deadline.expire(error)
      reject(error)
    }, ms)
  })
  try {
    return await Promise.race([opening, timedOut])
  } finally {
    clearTimeout(timer)
  }
}
