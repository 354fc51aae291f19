import type { JsonValue } from '@bosun/core'
import type { Context } from 'hono'
import type { ClusterMailboxEntry, ClusterStore, ClusterWatcher } from './store.js'

/** A request carried through the mailbox to the session's lease owner, who runs it on its own app. */
export interface RelayedRequest {
  method: string
  /** Path and query, e.g. `/v1/sessions/s/messages?wait=durable`. */
  path: string
  ifMatch?: string
  body?: JsonValue
}

/** The owner's answer, stored as the mailbox entry's outcome. */
export interface RelayOutcome {
  status: number
  body: JsonValue
}

/** Header of a request the owner runs for another host: it is never relayed again (a lease lost meanwhile answers 409). */
export const RELAYED_HEADER = 'x-bosun-relayed'

/** The owner's answer, as this host's answer. */
export const answer = (c: Context, outcome: RelayOutcome): Response => c.json(outcome.body, outcome.status as 200)

export function outcomeOf(entry: ClusterMailboxEntry | undefined): RelayOutcome | undefined {
  if (entry?.doneAt === null || entry === undefined) return undefined
  const outcome = entry.outcome as Partial<RelayOutcome> | null
  if (outcome === null || typeof outcome.status !== 'number') return undefined
  return { status: outcome.status, body: outcome.body ?? null }
}

/**
 * Waits up to `ms` for the owner to close a mailbox entry (its outcome stored), re-reading the
 * entry when the session's log grows (a splice is a new event) and at least every `pollMs`
 * (completions of queue operations send no NOTIFY). Returns the last entry read.
 */
export async function awaitOutcome(store: ClusterStore, watcher: ClusterWatcher, session: string, messageId: string, ms: number, pollMs = 50): Promise<ClusterMailboxEntry | undefined> {
  const deadline = Date.now() + ms
  let wake: (() => void) | undefined
  const stop = watcher.onEvents(session, () => wake?.())
  try {
    for (;;) {
      const entry = await store.mailbox.get(session, messageId)
      if (outcomeOf(entry) !== undefined) return entry
      const left = deadline - Date.now()
      if (left <= 0) return entry
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pollMs, left))
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
    }
  } finally {
    stop()
  }
}
