import type { SessionEvent } from '@bosun/core'
import type { StoreFileHandle } from './file-system.js'
import { parseEvents } from './reader.js'
import { readAt } from './summary-file.js'

/**
 * A range of a session file's events (`Store.readEvents`) without reading the whole file: the
 * log's lines are in seq order, so the line of the first seq asked for is found by a binary search
 * over byte offsets (a probe reads a few KiB at an offset, skips to the next line and reads that
 * line's seq from its first bytes), then the lines from there are read and parsed as `read()`
 * parses them. No index is kept: nothing to write per batch, to invalidate on a rollback, a
 * replay or a file replaced by hand, or to trust after a crash; a search costs about
 * log2(file size / 64 KiB) small reads (about 12 for 256 MiB), and the range the bytes of its lines.
 */

const NEWLINE = 0x0a
/** Bytes a probe reads at a time while it looks for the next line's start (more for a longer line). */
const PROBE_BYTES = 4096
/** Bytes of a line's start read for its seq: `{"seq":` and up to 16 digits, then `,`. */
const PREFIX_BYTES = 32
/** Below this many bytes between its bounds the search reads them at once and goes line by line. */
const SCAN_BYTES = 64 * 1024
/** The first read of a range's lines; each next read (for a range not yet complete) doubles, up to {@link RANGE_MAX_BYTES}. */
const RANGE_BYTES = 16 * 1024
const RANGE_MAX_BYTES = 8 * 1024 * 1024
/** How the writer starts every event line (format.ts, `eventLine`): the seq is read without the rest of the line. */
const SEQ_PREFIX = /^\{"seq":(0|[1-9][0-9]{0,15})[,}]/

/** The event lines of a session file as `read()` takes them: from just past the header line to the end of the last whole line. */
export interface EventLines {
  start: number
  /** Past the last newline of the bytes `read()` reads (valid length, trailing NUL bytes left out); `start` when there is none. */
  end: number
}

/**
 * The end of the whole lines of the file's bytes `[start, length)`: past the last newline, as
 * `read()` finds it (what follows is a torn line, or NUL bytes a crash left), read backwards from
 * `length` — the last line's bytes and what follows them. `start` when there is no newline;
 * `undefined` if the file is shorter than `length` (cut meanwhile).
 */
export async function wholeLinesEndAt(handle: StoreFileHandle, start: number, length: number): Promise<number | undefined> {
  for (let to = length; to > start; ) {
    const from = Math.max(start, to - PROBE_BYTES)
    const bytes = await readAt(handle, from, to)
    if (bytes === undefined) return undefined
    const newline = bytes.lastIndexOf(NEWLINE)
    if (newline >= 0) return from + newline + 1
    to = from
  }
  return start
}

/**
 * Events `fromSeq` … `fromSeq + limit - 1` of `lines`, as `read()` gives them: parsed, checked and
 * frozen by the same reader, a torn last line left out. `undefined` when the file is not what a
 * search can answer for, so that the caller reads it whole (and `read()` says what is wrong):
 * a line whose seq cannot be read, seqs that skip the one asked for, a line before the last that
 * does not parse, or a file cut shorter meanwhile. Damage in the range itself is CORRUPT_LOG with
 * its line, as `read()` reports it; damage outside the range is not seen (its point is not to read
 * those bytes), as with `list()`.
 */
export async function readEventRange(
  handle: StoreFileHandle, file: string, lines: EventLines, fromSeq: number, limit: number,
): Promise<SessionEvent[] | undefined> {
  const from = await lineOfSeq(handle, lines, fromSeq)
  if (from === undefined) return undefined
  if (from >= lines.end) return []
  const bytes = await linesFrom(handle, from, lines.end, limit)
  if (bytes === undefined) return undefined
  const parsed = parseEvents(bytes, 0, fromSeq, file)
  // parseEvents leaves a last line that does not parse out as torn: only the log's last line may be.
  if (parsed.intactLength < bytes.length && from + bytes.length < lines.end) return undefined
  return parsed.events
}

/**
 * Where the line of `seq` starts in `lines`, `lines.end` if the log ends before it, `undefined`
 * if the file does not say (see {@link readEventRange}). Bounds: `low` starts a line whose seq is
 * below `seq` (the first line, seq 0); `high` starts one whose seq is above it, or is the end.
 */
async function lineOfSeq(handle: StoreFileHandle, lines: EventLines, seq: number): Promise<number | undefined> {
  if (seq === 0 || lines.start === lines.end) return lines.start
  let low = lines.start
  let high = lines.end
  // Whether `high` is the end: the file's, or a torn last line's start (read() leaves that line out).
  let highIsEnd = true
  while (high - low > SCAN_BYTES) {
    const probe = await lineStartFrom(handle, low + Math.floor((high - low) / 2), lines.end)
    if (probe === undefined) return undefined
    // One line spans the middle to `high`: the bounds hold few lines, read them at once.
    if (probe >= high) break
    const found = await seqAt(handle, probe, lines.end)
    if (found === undefined) return undefined
    if (found === seq) return probe
    if (found < seq) low = probe
    else [high, highIsEnd] = [probe, found === Infinity]
  }
  const bytes = await readAt(handle, low, high)
  if (bytes === undefined) return undefined
  for (let at = 0; at < bytes.length; ) {
    const next = bytes.indexOf(NEWLINE, at) + 1
    const found = seqOfLine(bytes.subarray(at, next - 1), low + next === lines.end)
    if (found === undefined) return undefined
    if (found === seq) return low + at
    // A torn last line counts as no line; any other seq past the one asked for is a gap.
    if (found > seq) return found === Infinity ? lines.end : undefined
    at = next
  }
  return highIsEnd ? lines.end : undefined
}

/** The start of the first line at or after `offset` (just past a newline), `end` if none starts before it; `undefined` if the file was cut. */
async function lineStartFrom(handle: StoreFileHandle, offset: number, end: number): Promise<number | undefined> {
  for (let at = offset - 1; at < end; at += PROBE_BYTES) {
    const bytes = await readAt(handle, at, Math.min(end, at + PROBE_BYTES))
    if (bytes === undefined) return undefined
    const newline = bytes.indexOf(NEWLINE)
    if (newline >= 0) return at + newline + 1
  }
  return end
}

/** The seq of the line starting at `start`, from its first bytes (else the whole line); see {@link seqOfLine}. */
async function seqAt(handle: StoreFileHandle, start: number, end: number): Promise<number | undefined> {
  const prefix = await readAt(handle, start, Math.min(end, start + PREFIX_BYTES))
  if (prefix === undefined) return undefined
  const quick = seqPrefix(prefix)
  if (quick !== undefined) return quick
  const lineEnd = await lineStartFrom(handle, start + 1, end)
  if (lineEnd === undefined) return undefined
  const line = await readAt(handle, start, lineEnd - 1)
  return line === undefined ? undefined : seqOfLine(line, lineEnd === end)
}

/**
 * The seq of an event line (without its newline): from its prefix where the writer's key order
 * gives it, else parsed. A last line that does not parse is torn (`read()` leaves it out):
 * Infinity, past every seq. `undefined`: no seq to be read (a damaged line).
 */
function seqOfLine(line: Buffer, last: boolean): number | undefined {
  const quick = seqPrefix(line)
  if (quick !== undefined) return quick
  let value: unknown
  try {
    value = JSON.parse(line.toString('utf8'))
  } catch {
    return last ? Infinity : undefined
  }
  const seq = (value as { seq?: unknown } | null)?.seq
  return Number.isSafeInteger(seq) ? (seq as number) : undefined
}

function seqPrefix(bytes: Buffer): number | undefined {
  const match = SEQ_PREFIX.exec(bytes.toString('latin1', 0, Math.min(bytes.length, PREFIX_BYTES)))
  const seq = match === null ? NaN : Number(match[1])
  return Number.isSafeInteger(seq) ? seq : undefined
}

/** The bytes of at most `limit` whole lines from `from` (which starts one), ending at a newline (at most at `end`); `undefined` if the file was cut. */
async function linesFrom(handle: StoreFileHandle, from: number, end: number, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let count = 0
  let at = from
  for (let size = RANGE_BYTES; count < limit && at < end; size = Math.min(size * 2, RANGE_MAX_BYTES)) {
    const to = Math.min(end, at + size)
    const bytes = await readAt(handle, at, to)
    if (bytes === undefined) return undefined
    let newline = -1
    let cut = bytes.length
    while (count < limit && (newline = bytes.indexOf(NEWLINE, newline + 1)) >= 0) {
      count++
      cut = newline + 1
    }
    chunks.push(count < limit ? bytes : bytes.subarray(0, cut))
    at = to
  }
  return Buffer.concat(chunks)
}
