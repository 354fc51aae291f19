import { BosunError, ErrorCodes, LOG_FORMAT_VERSION, freezeParsedJson, internString, toFrozenJson } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'
import { corruptLog } from './errors.js'

/** An event as the columns of `session_events` (without the session id), serialised at append time. */
export interface EventRow extends StoredRow {
  /** The ids of the messages an `agent/inbox/spliced` event inserts (the mailbox marks them delivered). */
  inserted?: string[]
}

const ENVELOPE = new Set(['seq', 'time', 'type', 'data'])

/** Serialises an event at once, so later changes to the object cannot leak into the write. */
export function encodeEvent(event: SessionEvent, session: string): EventRow {
  if (typeof event !== 'object' || event === null) throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${session}": an appended event must be an object.`)
  const { seq, time, type } = event
  if (!Number.isSafeInteger(seq) || seq < 0 || typeof time !== 'number' || !Number.isFinite(time) || typeof type !== 'string') {
    throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${session}": an appended event needs an integer "seq", a finite "time" and a string "type".`, {
      details: { session, seq: String(seq), type: String(type) },
    })
  }
  const rest: Record<string, unknown> = {}
  let hasRest = false
  for (const key of Object.keys(event)) {
    if (ENVELOPE.has(key)) continue
    rest[key] = (event as unknown as Record<string, unknown>)[key]
    hasRest = true
  }
  let data: string | undefined
  let extra: string | null = null
  try {
    data = JSON.stringify(event.data)
    if (hasRest) extra = JSON.stringify(rest)
  } catch (error) {
    throw new BosunError(ErrorCodes.NOT_JSON, `Session "${session}": the data of event ${seq} ("${type}") is not JSON.`, { cause: error, details: { session, seq } })
  }
  if (typeof data !== 'string') throw new BosunError(ErrorCodes.NOT_JSON, `Session "${session}": event ${seq} ("${type}") has no JSON data.`, { details: { session, seq } })
  const row: EventRow = { seq, time, type, data, extra }
  if (type === 'agent/inbox/spliced') {
    const inserted = (event.data as { inserted?: unknown }).inserted
    if (Array.isArray(inserted)) row.inserted = inserted.map((message) => (message as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string')
  }
  return row
}

/** A row of `session_events` as the driver returns it: `data` JSON text, `extra` the other envelope fields (`ignorable`…) as a JSON object or null. */
export interface StoredRow {
  seq: number
  time: number
  type: string
  data: string
  extra: string | null
}

/**
 * Rebuilds the deep-frozen event of a row and pushes it to `out`. `expected` is the seq the row
 * must have (rows come ordered by seq; another one means a lost event: CORRUPT_LOG).
 */
export function decodeRow(row: StoredRow, out: SessionEvent[], database: string, session: string, expected: number): void {
  if (row.seq !== expected) {
    throw corruptLog(database, session, `the event with seq ${expected} is missing (the next stored event has seq ${row.seq}). Restore the database from a backup, or fork the session before seq ${expected}.`, {
      seq: expected,
      found: row.seq,
    })
  }
  let data: unknown
  let extra: unknown
  let column = 'data'
  try {
    data = JSON.parse(row.data)
    column = 'extra'
    if (row.extra !== null) extra = JSON.parse(row.extra)
  } catch {
    // Not kept as the cause: the parser's message quotes the stored text.
    throw corruptLog(database, session, `the event with seq ${row.seq} does not hold valid JSON in its "${column}" column.`, { seq: row.seq, column })
  }
  if (extra !== undefined && (typeof extra !== 'object' || extra === null || Array.isArray(extra) || Object.keys(extra).some((key) => ENVELOPE.has(key)))) {
    throw corruptLog(database, session, `the event with seq ${row.seq} has an "extra" column that is not a JSON object of envelope fields besides seq, time, type and data.`, { seq: row.seq, column: 'extra' })
  }
  // Straight out of JSON.parse, so JSON by construction: frozen in place, not copied.
  const event = { seq: row.seq, time: row.time, type: internString(row.type), data: freezeParsedJson(data) }
  out.push(Object.freeze(extra === undefined ? event : { ...event, ...(freezeParsedJson(extra) as object) }) as SessionEvent)
}

/** Checks a header given to `create` (its id was checked before): numbers where they belong, a version this build reads. */
export function checkHeader(header: SessionHeader, database: string): void {
  const { version, createdAt, parent } = header
  const needs = !Number.isSafeInteger(version) || version < 1
    ? `an integer "version" (${LOG_FORMAT_VERSION} for this build)`
    : typeof createdAt !== 'number' || !Number.isFinite(createdAt)
      ? 'a numeric "createdAt" (epoch ms)'
      : parent !== undefined && typeof parent !== 'string' ? 'a session id as its "parent", when it has one' : undefined
  if (needs !== undefined) throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${header.id}": the header needs ${needs}.`)
  refuseNewer(version, database, header.id)
}

/** Parses a stored header, refusing one that is damaged or newer than this build. */
export function decodeHeader(text: string, database: string, session: string): SessionHeader {
  let header: Partial<SessionHeader> | null
  try {
    header = JSON.parse(text) as Partial<SessionHeader> | null
  } catch {
    throw corruptLog(database, session, 'its header is not valid JSON.', { column: 'header' })
  }
  if (typeof header !== 'object' || header === null || header.id !== session || typeof header.version !== 'number' || typeof header.createdAt !== 'number') {
    throw corruptLog(database, session, 'its header does not have the shape { id, version, createdAt }.', { column: 'header' })
  }
  refuseNewer(header.version, database, session)
  return toFrozenJson(header, `The header of session "${session}" in ${database}`) as SessionHeader
}

function refuseNewer(version: number, database: string, session: string): void {
  if (version <= LOG_FORMAT_VERSION) return
  throw new BosunError(
    ErrorCodes.UNSUPPORTED_LOG_VERSION,
    `PostgreSQL store ${database}: session "${session}" was written with log format version ${version}, but this build reads up to version ${LOG_FORMAT_VERSION}. Upgrade @bosun/core.`,
    { details: { database, session, version, supported: LOG_FORMAT_VERSION } },
  )
}
