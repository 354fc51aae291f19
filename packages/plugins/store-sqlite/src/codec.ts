import { BosunError, ErrorCodes, LOG_FORMAT_VERSION, freezeParsedJson, toFrozenJson } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'
import { corruptLog } from './errors.js'

/** An event as a row of the `events` table (without the session id). */
export interface EventRow {
  seq: number
  time: number
  type: string
  /** `data` as JSON text. */
  data: string
  /** Envelope fields other than seq, time, type and data (e.g. `ignorable`), as JSON text; `null` when none. */
  extra: string | null
}

const ENVELOPE = new Set(['seq', 'time', 'type', 'data'])

/** Serialises an event right away (so later changes to it cannot leak into the write). */
export function encodeEvent(event: SessionEvent, session: string): EventRow {
  if (typeof event !== 'object' || event === null) {
    throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${session}": an appended event must be an object.`)
  }
  const { seq, time, type } = event
  if (!Number.isSafeInteger(seq) || seq < 0 || typeof time !== 'number' || !Number.isFinite(time) || typeof type !== 'string') {
    throw new BosunError(
      ErrorCodes.INVALID_ARGUMENT,
      `Session "${session}": an appended event needs an integer "seq", a finite "time" and a string "type".`,
      { details: { session, seq: String(seq), type: String(type) } },
    )
  }
  let data: string | undefined
  let extra: string | null = null
  try {
    data = JSON.stringify(event.data)
    let rest: Record<string, unknown> | undefined
    for (const key in event) {
      if (ENVELOPE.has(key)) continue
      rest ??= {}
      rest[key] = (event as unknown as Record<string, unknown>)[key]
    }
    if (rest !== undefined) extra = JSON.stringify(rest)
  } catch (error) {
    throw new BosunError(ErrorCodes.NOT_JSON, `Session "${session}": the data of event ${seq} ("${type}") is not JSON.`, {
      cause: error,
      details: { session, seq },
    })
  }
  if (typeof data !== 'string') {
    throw new BosunError(ErrorCodes.NOT_JSON, `Session "${session}": event ${seq} ("${type}") has no JSON data.`, { details: { session, seq } })
  }
  return { seq, time, type, data, extra }
}

/**
 * Rebuilds a deep-frozen event from its row. `expected` is the seq it must have: rows come ordered
 * by seq, so a different one means a gap (a lost event), reported as CORRUPT_LOG.
 */
export function decodeEvent(row: EventRow, expected: number, file: string, session: string): SessionEvent {
  if (row.seq !== expected) {
    throw corruptLog(
      file, session,
      `the event with seq ${expected} is missing (the next stored event has seq ${row.seq}). Restore the database from a backup, or fork the session before seq ${expected}.`,
      { seq: expected, found: row.seq },
    )
  }
  let data: unknown
  let extra: Record<string, unknown> | undefined
  let column = 'data'
  try {
    data = JSON.parse(row.data)
    column = 'extra'
    if (row.extra !== null) extra = JSON.parse(row.extra) as Record<string, unknown>
  } catch {
    // Not kept as the cause: the parser's message quotes the stored text.
    throw corruptLog(file, session, `the event with seq ${row.seq} does not hold valid JSON in its "${column}" column.`, { seq: row.seq, column })
  }
  const problem = rowProblem(row, extra)
  if (problem !== undefined) throw corruptLog(file, session, `the event with seq ${row.seq} ${problem}.`, { seq: row.seq })
  // Straight out of JSON.parse, so JSON by construction: frozen in place, not copied (an open of a
  // long session pays for this per event).
  const event = { seq: row.seq, time: row.time, type: row.type, data: freezeParsedJson(data) }
  return Object.freeze(extra === undefined ? event : { ...event, ...freezeParsedJson(extra) }) as SessionEvent
}

/** What is wrong with the envelope of a stored row (SQLite columns take any type), named without its values. */
function rowProblem(row: EventRow, extra: unknown): string | undefined {
  if (typeof row.type !== 'string') return 'has a "type" that is not text'
  if (typeof row.time !== 'number') return 'has a "time" that is not a number'
  if (extra === undefined) return undefined
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) return 'has an "extra" column that is not a JSON object'
  if (Object.keys(extra).some((key) => ENVELOPE.has(key))) return 'has an "extra" column that repeats an envelope field (seq, time, type or data)'
  return undefined
}

/** Checks a header given to `create`: its id must be valid (checked before), its version not newer than this build's. */
export function checkHeader(header: SessionHeader, file: string): void {
  if (!Number.isSafeInteger(header.version) || header.version < 1) {
    throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${header.id}": the header needs an integer "version" (${LOG_FORMAT_VERSION} for this build).`)
  }
  if (typeof header.createdAt !== 'number' || !Number.isFinite(header.createdAt)) {
    throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${header.id}": the header needs a numeric "createdAt" (epoch ms).`)
  }
  if (header.parent !== undefined && typeof header.parent !== 'string') {
    throw new BosunError(ErrorCodes.INVALID_ARGUMENT, `Session "${header.id}": the header's "parent" must be a session id.`)
  }
  refuseNewer(header.version, file, header.id)
}

/** Refuses a session written by a newer log format than {@link LOG_FORMAT_VERSION}. */
export function refuseNewer(version: number, file: string, session: string): void {
  if (version > LOG_FORMAT_VERSION) {
    throw new BosunError(
      ErrorCodes.UNSUPPORTED_LOG_VERSION,
      `SQLite store ${file}: session "${session}" was written with log format version ${version}, but this build reads up to version ${LOG_FORMAT_VERSION}. Upgrade @bosun/core.`,
      { details: { file, session, version, supported: LOG_FORMAT_VERSION } },
    )
  }
}

/** Parses a stored header, refusing one that is damaged or newer than this build. */
export function decodeHeader(text: string, file: string, session: string): SessionHeader {
  let header: unknown
  try {
    header = JSON.parse(text)
  } catch {
    // Not kept as the cause: the parser's message quotes the stored text.
    throw corruptLog(file, session, 'its header is not valid JSON.')
  }
  const h = header as Partial<SessionHeader> | null
  if (typeof h !== 'object' || h === null || h.id !== session || typeof h.version !== 'number' || typeof h.createdAt !== 'number') {
    throw corruptLog(file, session, 'its header does not have the shape { id, version, createdAt }.')
  }
  refuseNewer(h.version, file, session)
  return toFrozenJson(h, `The header of session "${session}" in ${file}`) as SessionHeader
}
