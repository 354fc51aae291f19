import type { JsonValue } from '@bosun/core'
import type { Context } from 'hono'
import { getPath } from 'hono/utils/url'
import { HostError } from '../errors.js'
import { MESSAGE_ID } from '../request.js'
import type { SchemaName } from '../schemas.js'
import { checkSessionId } from '../sessions.js'
import type { ClusterMailboxEntry, ClusterStore, ClusterWatcher } from './store.js'

/** A request carried through the mailbox to the session's lease owner, who runs it on its own app. */
export interface RelayedRequest {
  method: string
  /** Path and query, e.g. `/v1/sessions/s/messages?wait=durable`. */
  path: string
  ifMatch?: string
  body?: JsonValue
  /**
   * A message a host that lost the session hands over (hand-over.ts), as last edited: the owner
   * does not compare it with an admission of its id in its log (`client-message-id-reused`), nor
   * does a sender's retry compare with it — the client sent the first version.
   */
  handOver?: true
}

/** Header of a relayed hand-over's run on the owner ({@link RelayedRequest.handOver}). */
export const HAND_OVER_HEADER = 'x-bosun-hand-over'

/** A route that changes a session: run by its lease owner, relayed through the mailbox from any other host. */
export interface Relayable { method: string; pattern: RegExp; schema?: SchemaName; message?: true }

const S = '^/v1/sessions/([^/]+)'
/** The routes a host relays, and the only ones a lease owner runs from its mailbox ({@link refusal}). The second group is a queued message's id. */
export const RELAYABLE: readonly Relayable[] = [
  { method: 'POST', pattern: new RegExp(`${S}/messages$`), schema: 'postMessage', message: true },
  { method: 'PUT', pattern: new RegExp(`${S}/inbox/order$`), schema: 'order' },
  { method: 'PATCH', pattern: new RegExp(`${S}/inbox/([^/]+)$`), schema: 'editMessage' },
  { method: 'DELETE', pattern: new RegExp(`${S}/inbox/([^/]+)$`) },
  { method: 'POST', pattern: new RegExp(`${S}/inbox/([^/]+)/promote$`), schema: 'empty' },
  { method: 'POST', pattern: new RegExp(`${S}/cancel$`), schema: 'cancel' },
  { method: 'POST', pattern: new RegExp(`${S}/wake$`), schema: 'empty' },
]

/** The session id of a relayable route's match, or undefined when the route would refuse it. */
export function sessionOf(match: RegExpMatchArray | null): string | undefined {
  const id = match ? decoded(match[1]!) : undefined
  if (id === undefined) return undefined
  try {
    checkSessionId(id)
    return id
  } catch {
    return undefined // the route answers the malformed id
  }
}

function decoded(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

const shown = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)

/**
 * Why the lease owner does not run a mailbox entry of `session`, or undefined when it is a
 * request this host would relay itself: one of {@link RELAYABLE}'s method and path (matched on
 * the path as the router decodes it), naming this session and, for a queued message, a message id
 * the route takes; a message route posted as a message, the others as requests. Only a writer to
 * the database could post anything else; the reason names the method and path, never the query,
 * body or `If-Match`.
 */
export function refusal(session: string, entry: ClusterMailboxEntry): string | undefined {
  const relayed = entry.body as Partial<Record<keyof RelayedRequest, unknown>> | null
  if (typeof relayed !== 'object' || relayed === null || Array.isArray(relayed)) return 'it is not a relayed request'
  const { method, path, ifMatch } = relayed
  if (typeof method !== 'string' || typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) return 'it names no method and path'
  if (ifMatch !== undefined && (typeof ifMatch !== 'string' || !/^[\x20-\x7e]*$/.test(ifMatch))) return 'its If-Match is not a header value'
  let routed: string
  try {
    const request = new Request(`http://127.0.0.1${path}`)
    if (new URL(request.url).host !== '127.0.0.1') return 'its path is not a path'
    routed = getPath(request)
  } catch {
    return 'its path is not a path'
  }
  const named = `${shown(method)} ${shown(routed)}`
  const route = RELAYABLE.find((r) => r.method === method && r.pattern.test(routed))
  if (route === undefined) return `${named} is not a route hosts relay`
  const match = routed.match(route.pattern)!
  if (sessionOf(match) !== session) return `${named} does not name this session`
  if (match[2] !== undefined && !MESSAGE_ID.test(decoded(match[2]) ?? '')) return `${named} names no message id`
  if ((route.message === true) !== (entry.kind === 'message')) return `${named} was posted as a ${shown(entry.kind)}`
  return undefined
}

/** The owner's answer to a mailbox entry it refuses ({@link refusal}): 400 invalid-request, what the sender sees. */
export function refused(session: string, messageId: string, reason: string): RelayOutcome {
  const error = new HostError('invalid-request', `The host that owns session "${session}" refused the relayed request ${shown(messageId)}: ${reason}. A host runs from the mailbox only the changes hosts relay (POST /messages, the queue's PATCH, DELETE, promote and order, cancel, wake); send the change to any host's route.`, { id: session, requestId: messageId })
  return { status: error.status, body: error.toJSON() as unknown as JsonValue }
}

/**
 * The owner's answer to a mailbox entry whose run threw (not an error answer of the route: the
 * request failed outside it): 500 internal-error, what the sender sees, so that it is not left
 * waiting for an answer that retrying would not bring, nor the session's later mail behind it.
 */
export function failed(session: string, entry: ClusterMailboxEntry): RelayOutcome {
  const again = entry.kind === 'message' ? 'send the message again (under the same clientMessageId: it is admitted at most once)' : 'look at the session (GET /v1/sessions/:id) and send the change again if it is not there'
  const error = new HostError('internal-error', `The host that owns session "${session}" failed to run the relayed request ${shown(entry.messageId)}; its log says why. It may not have been carried out: ${again}.`, { id: session, requestId: entry.messageId })
  return { status: error.status, body: error.toJSON() as unknown as JsonValue }
}

/**
 * The owner's answer to a mailbox entry whose run had not ended after `ms` (a hook or a store call
 * that never settled): 503 session-unavailable, so that its sender is not left waiting and the
 * session's later mail is carried out. The run is not stopped — nothing can stop a route midway —
 * so the change may still take effect: the message says how to find out before sending it again.
 */
export function gaveUp(session: string, entry: ClusterMailboxEntry, ms: number): RelayOutcome {
  const lookup = entry.kind === 'message'
    ? `look it up (GET /v1/sessions/${encodeURIComponent(session)}/messages/${encodeURIComponent(entry.messageId)}) and send it again under the same clientMessageId if it is not admitted (it is admitted at most once)`
    : 'look at the session (GET /v1/sessions/:id) and send the change again if it is not there'
  const error = new HostError('session-unavailable', `The host that owns session "${session}" gave up on the relayed request ${shown(entry.messageId)} after ${ms} ms: its run had not ended (a hook or a store call did not answer; its log says which request). The run was not stopped and may still take effect: ${lookup}.`, { id: session, requestId: entry.messageId, afterMs: ms })
  return { status: error.status, body: error.toJSON() as unknown as JsonValue }
}

/** Whether an entry's stored answer is the owner's {@link gaveUp}: not the run's own answer. */
export function isGaveUp(entry: ClusterMailboxEntry | undefined): boolean {
  const body = outcomeOf(entry)?.body as { error?: { code?: unknown; details?: { afterMs?: unknown } } } | null | undefined
  return body?.error?.code === 'session-unavailable' && typeof body.error.details?.afterMs === 'number'
}

/**
 * Whether a mailbox entry is a message its owner answered with an error without admitting it
 * (done, never spliced): on one host such a message sent again under its id runs again, so a
 * post under that id reopens it (`Cluster.relay`). Running it again is safe whatever the
 * error: the owner's admission is idempotent by the id in its log.
 */
export function notAdmitted(entry: ClusterMailboxEntry): boolean {
  if (entry.kind !== 'message' || entry.deliveredSeq !== null) return false
  const outcome = outcomeOf(entry)
  return outcome !== undefined && outcome.status >= 400
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
 * Waits up to `ms` for the owner to close a mailbox entry (its outcome stored), or for `settled`
 * to say no answer will come, re-reading the entry when the session's log grows (a splice is a new
 * event) and at least every `pollMs` (completions of queue operations send no NOTIFY). Returns the
 * last entry read.
 */
export async function awaitOutcome(store: ClusterStore, watcher: ClusterWatcher, session: string, messageId: string, ms: number, options: { pollMs?: number; settled?: (entry: ClusterMailboxEntry | undefined) => Promise<boolean> } = {}): Promise<ClusterMailboxEntry | undefined> {
  const { pollMs = 50, settled } = options
  const deadline = Date.now() + ms
  let wake: (() => void) | undefined
  const stop = watcher.onEvents(session, () => wake?.())
  try {
    for (;;) {
      const entry = await store.mailbox.get(session, messageId)
      if (outcomeOf(entry) !== undefined) return entry
      // Only once delivered: the entry's own run may still answer it, which settled reads the log to rule out.
      if (settled !== undefined && entry?.deliveredSeq != null && (await settled(entry))) return entry
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

/**
 * `run`'s answer if it ends within `ms`, else undefined (the caller logs the give-up with what
 * became of the entry). Nothing stops the run itself (a route cannot be stopped midway): it goes
 * on, and a throw after the limit goes to `lateFailure`.
 */
export async function runWithin(run: Promise<RelayOutcome>, ms: number, lateFailure: (error: unknown) => void): Promise<RelayOutcome | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
    timer.unref?.()
  })
  try {
    const outcome = await Promise.race([run, limit])
    if (outcome === undefined) run.catch(lateFailure)
    return outcome
  } finally {
    clearTimeout(timer)
  }
}
