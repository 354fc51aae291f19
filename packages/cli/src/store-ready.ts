import type { Store } from '@bosun/core'
import { duration } from './slow-setup.js'

export interface ReadyWatch {
  /** How long the store may take before the wait is said (serve's slow-setup interval). */
  afterMs: number
  /** What the command waits to do: `bosun serve listens`. */
  then: string
  /** Writes the line (to stderr). */
  say: (line: string) => void
}

/**
 * Lets a store that connects to a database connect now, with its first-connection checks — the
 * PostgreSQL store's `ready()`: a wrong password, a database that does not exist, a schema of a
 * newer layout or another application's — and fails with the store's own error, which says what to
 * check and never holds the URL's password. A store connects lazily, on its first operation, so
 * `bosun serve` over one it cannot use listened, then answered every request `500 internal-error`
 * with a stack trace in its log. A store without `ready()` has nothing to connect to ahead: it
 * passes. A connection still pending after `afterMs` (a host that drops the packets: the store
 * waits for its `statementTimeoutMs`) is said once, so that serve does not look hung.
 */
export async function requireReadyStore(store: Store, watch: ReadyWatch): Promise<void> {
  const ready = (store as { ready?: unknown }).ready
  if (typeof ready !== 'function') return
  const database = (store as { database?: unknown }).database
  const which = typeof database === 'string' ? `the store ${database}` : `the store "${store.name}"`
  const timer = setTimeout(() => {
    watch.say(`still waiting for ${which} to answer after ${duration(watch.afterMs)}: ${watch.then} once it has (Ctrl+C stops it)`)
  }, watch.afterMs)
  timer.unref()
  try {
    await (ready as () => Promise<void>).call(store)
  } finally {
    clearTimeout(timer)
  }
}
