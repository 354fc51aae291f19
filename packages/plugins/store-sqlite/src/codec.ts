import { BosunError, ErrorCodes, LOG_FORMAT_VERSION, freezeParsedJson, internString, toFrozenJson } from '@bosun/core'
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

/** A row as read back: one event, or (`count` > 1) a packed run of events of one type. */
export interface StoredRow extends EventRow {
  /** Events in the row: 1, or the length of a packed run (`data` is then the array of their data). */
  count: number
  /** A packed run whose events' times differ: the JSON array of their times; otherwise null. */
  times: string | null
}

/** Receives the rows {@link packRows} makes, as the columns of `events` (no object per row). */
export type RowSink = (seq: number, time: number, type: string, data: string, extra: string | null, count: number, times: string | null) => void

/**
 * Packs `rows` (consecutive events of one batch) into the rows to insert, handed to `emit` in
 * order: each run of two or more consecutive events of `type` without extra envelope fields
 * becomes one row of up to `max` events — `data` the JSON array of their data, `time` the first
 * one's, `times` the array of all of them when they differ. Every other event is a row of its own.
 */
export function packRows(rows: readonly EventRow[], type: string, max: number, emit: RowSink): void {
  for (let i = 0; i < rows.length; ) {
    const first = rows[i]!
    let end = i + 1
    if (first.type === type && first.extra === null) {
      while (end < rows.length && end - i < max && rows[end]!.type === type && rows[end]!.extra === null) end++
    }
    if (end - i === 1) {
      emit(first.seq, first.time, first.type, first.data, first.extra, 1, null)
    } else {
      let data = '['
      let sameTime = true
      for (let k = i; k < end; k++) {
        const row = rows[k]!
        data += k === i ? row.data : `,${row.data}`
        if (row.time !== first.time) sameTime = false
      }
      let times: string | null = null
      if (!sameTime) {
        times = '['
        for (let k = i; k < end; k++) times += k === i ? JSON.stringify(rows[k]!.time) : `,${JSON.stringify(rows[k]!.time)}`
        times += ']'
      }
      emit(first.seq, first.time, type, `${data}]`, null, end - i, times)
    }
    i = end
  }
}

/**
 * Rebuilds the deep-frozen events of a stored row (one, or a packed run) and pushes them to `out`.
 * `first + out.length` is the seq the row must start at (`first`: the seq of `out[0]`, 0 for a
 * whole log): rows come ordered by seq, so a different one means a gap (a lost event), reported
 * as CORRUPT_LOG.
 */
export function decodeRow(row: StoredRow, out: SessionEvent[], file: string, session: string, first = 0): void {
  const expected = first + out.length
  if (row.seq !== expected) {
    throw corruptLog(
      file, session,
      `the event with seq ${expected} is missing (the next stored event has seq ${row.seq}). Restore the database from a backup, or fork the session before seq ${expected}.`,
      { seq: expected, found: row.seq },
    )
  }
  if (row.count === 1) {
    out.push(decodeEvent(row, file, session))
    return
  }
  let data: unknown
  let times: unknown
  let column = 'data'
  try {
    data = JSON.parse(row.data)
    column = 'times'
    if (row.times !== null) times = JSON.parse(row.times)
  } catch {
    // Not kept as the cause: the parser's message quotes the stored text.
    throw corruptLog(file, session, `the row of events from seq ${row.seq} does not hold valid JSON in its "${column}" column.`, { seq: row.seq, column })
  }
  const problem = packedProblem(row, data, times)
  if (problem !== undefined) throw corruptLog(file, session, `the row of events from seq ${row.seq} ${problem}.`, { seq: row.seq })
  const values = data as unknown[]
  // One copy of the type for the row's events and the log's other rows of that type.
  const type = internString(row.type)
  for (let i = 0; i < values.length; i++) {
    const time = times === undefined ? row.time : (times as number[])[i]!
    out.push(Object.freeze({ seq: row.seq + i, time, type, data: freezeParsedJson(values[i]) }) as SessionEvent)
  }
}

/** What is wrong with a packed row, named without its values. */
function packedProblem(row: StoredRow, data: unknown, times: unknown): string | undefined {
  if (!Number.isSafeInteger(row.count) || row.count < 1) return 'has a "count" that is not a positive integer'
  if (typeof row.type !== 'string') return 'has a "type" that is not text'
  if (typeof row.time !== 'number') return 'has a "time" that is not a number'
  if (row.extra !== null) return 'has an "extra" column, which a packed row does not have'
  if (!Array.isArray(data) || data.length !== row.count) return `does not hold an array of ${row.count} events in its "data" column`
  if (times !== undefined && (!Array.isArray(times) || times.length !== row.count || !times.every((t) => typeof t === 'number'))) {
    return `does not hold an array of ${row.count} times in its "times" column`
  }
  return undefined
}

/** Rebuilds a deep-frozen event from its row (one event). */
function decodeEvent(row: EventRow, file: string, session: string): SessionEvent {
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
  const event = { seq: row.seq, time: row.time, type: internString(row.type), data: freezeParsedJson(data) }
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
