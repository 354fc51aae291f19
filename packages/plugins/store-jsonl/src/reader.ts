import { isUtf8 } from 'node:buffer'
import { BosunError, ErrorCodes, LOG_FORMAT_VERSION, freezeParsedJson } from '@bosun/core'
import type { SessionEvent, SessionHeader } from '@bosun/core'
import { HEADER_MARKER } from './format.js'

/** A session file, parsed. */
export interface ParsedLog {
  header: SessionHeader
  /** Every event, deep-frozen, `seq` contiguous from 0. */
  events: SessionEvent[]
  /**
   * Length in bytes of the intact content. Shorter than the file when a crash left a torn last
   * line (no newline, unparsable, invalid UTF-8, or a run of NUL bytes): the caller cuts there.
   */
  intactLength: number
}

const NEWLINE = 0x0a
/**
 * Lines are decoded in slices of about this many bytes: one string of the whole file would fail
 * past V8's string limit (~512 MB), and short slices would cost a call per line.
 */
export const DECODE_SLICE_BYTES = 64 * 1024 * 1024

/**
 * Parses a whole session file, each line once. Only the last line may be damaged (that is what
 * a crash during an append leaves); it is excluded from `intactLength`. Damage anywhere before it
 * is corruption: {@link ErrorCodes.CORRUPT_LOG} naming the file, the 1-based line and the problem,
 * never quoting the line (a session log holds conversations, and a file that is not a session at
 * all may hold anything) — nor keeping the parser's error, whose message quotes it.
 * `sliceBytes` is for tests (slice boundaries must not change the result).
 */
export function parseLog(bytes: Buffer, file: string, id: string, sliceBytes = DECODE_SLICE_BYTES): ParsedLog {
  const headerEnd = bytes.indexOf(NEWLINE) + 1
  // A newline is never one of a crash's NUL bytes: the header is whole iff there is one.
  if (headerEnd === 0) {
    throw corrupt(file, 1, 'the header line is incomplete', 'The session was never fully created; delete the file to reuse its id.')
  }
  const header = parseHeader(bytes.toString('utf8', 0, headerEnd - 1), file, id, !isUtf8(bytes.subarray(0, headerEnd)))
  const { events, intactLength } = parseEvents(bytes, headerEnd, 0, file, sliceBytes)
  if (header.seedLength !== undefined && header.seedLength > events.length) {
    throw corrupt(file, events.length + 2, `the header announces more seed events than the ${events.length} stored`)
  }
  return { header, events, intactLength }
}

/** The events of a session file's lines, as {@link parseLog} reads them, and where they end. */
export interface ParsedEvents {
  /** Deep-frozen, `seq` contiguous from the first one's. */
  events: SessionEvent[]
  /** End of the intact lines: a torn last line is left out (see {@link ParsedLog.intactLength}). */
  intactLength: number
}

/**
 * Parses the event lines of `bytes` from `start` (just past a newline) whose first event has seq
 * `firstSeq`: the whole log after its header ({@link parseLog}), or the tail of one after the
 * events a list summary covers (summary-file.ts). Only the last line may be damaged (left out of
 * `intactLength`); damage before it is CORRUPT_LOG, with the line's number (seq + 2).
 */
export function parseEvents(bytes: Buffer, start: number, firstSeq: number, file: string, sliceBytes = DECODE_SLICE_BYTES): ParsedEvents {
  const end = contentEnd(bytes)
  const lastNewline = end <= start ? -1 : bytes.lastIndexOf(NEWLINE, end - 1)
  const events: SessionEvent[] = []
  if (lastNewline < start) return { events, intactLength: start }
  let intactLength = lastNewline + 1
  const badUtf8 = isUtf8(bytes.subarray(start, intactLength)) ? -1 : firstInvalidUtf8Line(bytes, start, intactLength)
  let index = 0 // 0-based index of the line from `start`
  slices: for (let from = start; from < intactLength; ) {
    const stop = sliceEnd(bytes, from, intactLength, sliceBytes)
    const lines = bytes.toString('utf8', from, stop - 1).split('\n')
    const lastSlice = stop === intactLength
    for (let i = 0; i < lines.length; i++, index++) {
      const isLast = lastSlice && i === lines.length - 1
      let value: unknown
      let problem: string | undefined
      if (index === badUtf8) problem = 'the line is not valid UTF-8'
      else {
        try {
          value = JSON.parse(lines[i]!)
        } catch (error) {
          problem = notJson('the line', error)
        }
      }
      const seq = firstSeq + events.length
      if (problem !== undefined) {
        if (isLast) {
          intactLength = bytes.lastIndexOf(NEWLINE, lastNewline - 1) + 1
          break slices
        }
        throw corrupt(file, seq + 2, problem)
      }
      problem = eventProblem(value, seq)
      if (problem) throw corrupt(file, seq + 2, problem)
      // Frozen in place, each short string (type, role, tool name) shared with the other events':
      // unmarked, as the envelope is never passed on as a message.
      events.push(freezeParsedJson(value as SessionEvent, { mark: false }))
    }
    from = stop
  }
  return { events, intactLength }
}

/** The end of the content: a crash can leave zero-filled blocks at the end (the size was updated, the data was not). */
function contentEnd(bytes: Buffer): number {
  let end = bytes.length
  while (end > 0 && bytes[end - 1] === 0) end--
  return end
}

/** The end (just past a newline) of the slice that starts at `start`: whole lines, about `size` bytes. */
function sliceEnd(bytes: Buffer, start: number, limit: number, size: number): number {
  if (limit - start <= size) return limit
  const cut = bytes.lastIndexOf(NEWLINE, start + size - 1)
  // A single line longer than a slice is decoded alone.
  return cut >= start ? cut + 1 : bytes.indexOf(NEWLINE, start) + 1
}

/**
 * Parses and checks a header line (without its newline). A newer format version is refused
 * with {@link ErrorCodes.UNSUPPORTED_LOG_VERSION} before anything else is checked.
 */
export function parseHeader(line: string, file: string, id: string, badUtf8 = false): SessionHeader {
  if (badUtf8) throw corrupt(file, 1, 'the header is not valid UTF-8')
  let value: Record<string, unknown>
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw corrupt(file, 1, notJson('the header', error))
  }
  if (!isObject(value) || value.bosun !== HEADER_MARKER) {
    throw corrupt(file, 1, `the first line is not a Bosun session header (expected {"bosun":"session", …})`)
  }
  const { bosun: _marker, ...header } = value
  const version = header.version
  if (!Number.isSafeInteger(version) || (version as number) < 1) {
    throw corrupt(file, 1, `the header's "version" must be a positive integer, but it is ${kindOfValue(version)}`)
  }
  if ((version as number) > LOG_FORMAT_VERSION) {
    throw new BosunError(
      ErrorCodes.UNSUPPORTED_LOG_VERSION,
      `Session log ${file} has format version ${String(version)}, but this build reads versions up to ${LOG_FORMAT_VERSION}. Upgrade Bosun (and @bosun/plugin-store-jsonl) to open it.`,
      { details: { file, version, supported: LOG_FORMAT_VERSION } },
    )
  }
  if (header.id !== id) throw corrupt(file, 1, `the header's "id" is not "${id}", the file's name`)
  if (typeof header.createdAt !== 'number') throw corrupt(file, 1, `the header's "createdAt" must be a number`)
  if (header.parent !== undefined && typeof header.parent !== 'string') throw corrupt(file, 1, `the header's "parent" must be a string`)
  const seedLength = header.seedLength
  if (seedLength !== undefined && (!Number.isSafeInteger(seedLength) || (seedLength as number) < 0)) {
    throw corrupt(file, 1, `the header's "seedLength" must be a non-negative integer`)
  }
  return Object.freeze(header) as unknown as SessionHeader
}

/** What is wrong with a parsed event line, or `undefined` when it is a well-formed event with the expected seq. */
function eventProblem(value: unknown, expectedSeq: number): string | undefined {
  if (!isObject(value)) return 'the line is not an event object'
  if (value.seq !== expectedSeq) {
    return typeof value.seq === 'number'
      ? `the event's "seq" is not ${expectedSeq} (events are missing or out of order)`
      : `the event has no numeric "seq" (expected ${expectedSeq})`
  }
  if (typeof value.time !== 'number') return `event ${expectedSeq} has no numeric "time"`
  if (typeof value.type !== 'string') return `event ${expectedSeq} has no string "type"`
  if (!isObject(value.data)) return `event ${expectedSeq} has no object "data"`
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Index (0-based, from `start`) of the first line in `bytes[start, length)` that is not valid UTF-8. Slow path only. */
function firstInvalidUtf8Line(bytes: Buffer, start: number, length: number): number {
  for (let index = 0; start < length; index++) {
    const end = bytes.indexOf(NEWLINE, start)
    if (!isUtf8(bytes.subarray(start, end))) return index
    start = end + 1
  }
  return -1
}

/**
 * "not JSON", with where the parser stopped when its message says (a number, never the text: the
 * message itself quotes the line, so neither it nor the error is kept).
 */
function notJson(what: string, error: unknown): string {
  const position = /at position (\d+)/.exec(String((error as Error)?.message))?.[1]
  return position === undefined ? `${what} is not JSON` : `${what} is not JSON (the parser stopped at character ${position})`
}

/** The JSON type of a value, in words: what a message may say about a value it must not quote. */
function kindOfValue(value: unknown): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return 'another number'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** CORRUPT_LOG naming the file, the 1-based line and the problem; `problem` never quotes the file's content. */
function corrupt(
  file: string,
  line: number,
  problem: string,
  advice = 'The lines before it are intact; move the file aside to start the session over, or repair that line by hand.',
): BosunError {
  return new BosunError(ErrorCodes.CORRUPT_LOG, `Session log ${file} is damaged at line ${line}: ${problem}. ${advice}`, { details: { file, line } })
}
