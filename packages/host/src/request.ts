import type { Agent, SessionEvent, UserMessage } from '@bosun/core'
import type { Context } from 'hono'
import { HostError } from './errors.js'
import { checkSessionId, type LiveSession } from './sessions.js'

/**
 * How deep a request body's JSON may nest (the config formats' limit too). A body within the size
 * limit can nest some 500,000 levels; the recursive copy of a message's content overflowed the
 * stack at a few thousand (a 500 and a stack trace in the host's log per request), and what was
 * admitted below that was logged for every reader of the session to walk.
 */
export const MAX_BODY_DEPTH = 100

/** Whether JSON `text` opens more than `max` objects and arrays inside each other (strings skipped); checked before parsing. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c) i++ // a backslash: skip the escaped character
      else if (char === 0x22) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true
    } else if (char === 0x7d || char === 0x5d) depth--
  }
  return false
}

/** Reads a JSON body, refusing more than `limit` bytes (by content-length and while streaming) and more than `maxDepth` levels. */
export async function readBody(c: Context, limit: number, maxDepth = MAX_BODY_DEPTH): Promise<unknown> {
  const length = c.req.header('content-length')
  if (length !== undefined && Number(length) > limit) {
    throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
  }
  const body = c.req.raw.body
  if (!body) return {}
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new HostError('payload-too-large', `The request body is larger than ${limit} bytes: send less.`, { limit })
    }
    chunks.push(value)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return {}
  if (nestsDeeperThan(text, maxDepth)) {
    throw new HostError('invalid-request', `The request body nests deeper than ${maxDepth} levels of objects and arrays: send flatter JSON.`, { path: '/', limit: maxDepth })
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new HostError('invalid-request', 'The request body is not valid JSON.', { path: '/' })
  }
}

export function intQuery(c: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name)
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new HostError('invalid-request', `Query parameter "${name}" must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}.`, { path: `?${name}` })
  }
  return value
}

/** `POST …/messages`' `?wait`: true for `durable` (the receipt once its splice is committed); anything else but absent is refused. */
export function waitDurableQuery(c: Context): boolean {
  const wait = c.req.query('wait')
  if (wait !== undefined && wait !== 'durable') throw new HostError('invalid-request', `"wait" may only be "durable", got ${JSON.stringify(wait)}.`, { path: '?wait' })
  return wait === 'durable'
}

/** The `:id` route parameter, validated as a session id. */
export function sessionIdParam(c: Context): string {
  const id = c.req.param('id')!
  checkSessionId(id)
  return id
}

/** The longest message id a URL may name: a clientMessageId (128), a UUID, a subagent's `settle:<session id>:<epoch>`. */
export const MAX_MESSAGE_ID = 256
/** A message id as the routes take it in the URL (see {@link checkMessageIdParam}). */
export const MESSAGE_ID = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${MAX_MESSAGE_ID - 1}}$`)

/**
 * Refuses a `:messageId` route parameter that no message of a session can have, before anything
 * looks it up (a store, a cluster's mailbox, a relay): the ids the host admits
 * (`clientMessageId`), the core makes (UUIDs) and the subagents plugin makes
 * (`settle:<child id>:<epoch>`) are all letters, digits, `.`, `_`, `:` and `-`, at most 256.
 */
export function checkMessageIdParam(c: Context): void {
  const id = c.req.param('messageId')
  if (id === undefined || MESSAGE_ID.test(id)) return
  const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id
  throw new HostError('invalid-request', `Invalid message id ${JSON.stringify(shown)} in the URL (${id.length} characters): a message id is 1-${MAX_MESSAGE_ID} letters, digits, ".", "_", ":" or "-", starting with a letter or digit — the clientMessageId it was sent with, or the messageId of its admission receipt.`, { path: ':messageId' })
}

export function inboxOf(agent: Agent): { 'next-turn': readonly UserMessage[]; 'next-step': readonly UserMessage[] } {
  return { 'next-turn': [...agent.inbox.nextTurn], 'next-step': [...agent.inbox.nextStep] }
}

/** The inbox version of a stored log: the seq of its latest `agent/inbox/spliced` after the seed (-1 if none). */
export function inboxVersionOf(events: readonly SessionEvent[], seedLength: number): number {
  for (let i = events.length - 1; i >= seedLength; i--) if (events[i]!.type === 'agent/inbox/spliced') return i
  return -1
}

/**
 * Optimistic concurrency for queue operations: an `If-Match: "<inbox version>"` (the seq of the
 * latest splice the client has seen, as `GET /sessions/:id` answers it in `inboxVersion` and its
 * ETag) that is no longer current is `412 version-mismatch`. Without the header the operation runs
 * against the queue as it is (a message that is gone is still `queue-item-not-found`).
 */
export function checkInboxVersion(c: Context, live: LiveSession): void {
  const header = c.req.header('if-match')
  if (header === undefined) return
  const raw = header.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1')
  const expected = Number(raw)
  if (raw === '' || !Number.isSafeInteger(expected) || expected < -1) {
    throw new HostError('invalid-request', `If-Match must be an inbox version (a seq, e.g. "41", from GET /v1/sessions/${live.id}), got ${JSON.stringify(header)}.`, { path: 'If-Match' })
  }
  if (expected !== live.inboxSeq) {
    throw new HostError('version-mismatch', `The queue changed since version ${expected} (it is now ${live.inboxSeq}): read GET /v1/sessions/${live.id} and retry.`, { id: live.id, expected, current: live.inboxSeq })
  }
}

/**
 * A session stream's cursor: `Last-Event-ID` first — an EventSource reconnects to the same URL
 * (`?from=tail` too) and sends the last seq it got, where it must resume (from the tail, what was
 * logged meanwhile would be lost) — then `?from=tail`, then `?after` (-1, from seq 0, when absent).
 * A `from` other than `tail` is refused: taken as no cursor, a typo would replay the whole history
 * to a client that asked for live events only.
 */
function streamCursor(c: Context): number | 'tail' {
  const lastEventId = c.req.header('last-event-id')
  const from = c.req.query('from')
  if (from !== undefined && from !== '' && from !== 'tail') {
    throw new HostError('invalid-request', `"from" may only be "tail" (live events only; leave it out to replay from seq 0, or give ?after=<seq>), got ${JSON.stringify(from)}.`, { path: '?from' })
  }
  if (lastEventId !== undefined && lastEventId !== '') {
    const cursor = Number(lastEventId)
    if (!Number.isSafeInteger(cursor) || cursor < -1) throw new HostError('invalid-request', `Last-Event-ID must be a seq (an integer ≥ -1), got ${JSON.stringify(lastEventId)}.`, { path: 'Last-Event-ID' })
    return cursor
  }
  if (from === 'tail') return 'tail'
  return intQuery(c, 'after', -1, -1, Number.MAX_SAFE_INTEGER)
}

/** A session stream's query (the owner's and a cluster host's route): its cursor ({@link streamCursor}) and `?chunks`. */
export function streamQuery(c: Context): { cursor: number | 'tail'; chunks: boolean } {
  const cursor = streamCursor(c)
  const chunks = c.req.query('chunks')
  if (chunks !== undefined && chunks !== 'true' && chunks !== 'false') {
    throw new HostError('invalid-request', `"chunks" must be "true" or "false", got ${JSON.stringify(chunks)}.`, { path: '?chunks' })
  }
  return { cursor, chunks: chunks !== 'false' }
}

/**
 * A resume cursor beyond the log names events this session no longer has (a crash lost its
 * unflushed tail, or the session was recreated): replaying from it would silently skip or
 * duplicate seqs, so the client must start over (`409 replay-unavailable`).
 */
export function checkCursor(id: string, after: number, lastSeq: number): void {
  if (after > lastSeq) {
    throw new HostError('replay-unavailable', `Cannot resume session "${id}" after seq ${after}: its log ends at seq ${lastSeq} (events the client saw were lost or the session was recreated). Reload it from seq 0 (drop Last-Event-ID / after).`, { id, after, lastSeq })
  }
}
