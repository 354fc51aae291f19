import { LogSummaryFold } from '@bosun/core'
import { FILE_SUFFIX } from './format.js'
import { errnoCode, type StoreFileHandle, type StoreFileSystem } from './file-system.js'
import { writeFully } from './file-writes.js'
import { crc32 } from './journal-format.js'
import { parseEvents } from './reader.js'

/**
 * A session's list summary, kept as a cache beside its log in `<dir>/<id>.summary.json` (the
 * "sidecar"), so that `list()` reads a bounded tail of each log instead of the whole of it.
 *
 * The sidecar holds the fold of the log's first events (core's `LogSummaryFold`) and where they
 * end: `byteOffset`, a line boundary in the log. `list()` folds on from there over the rest of
 * the file (within its valid length), so the summary is that of the whole log as a full read
 * parses it. Only the session's writer writes the sidecar (it holds the session's lock, and
 * summarises only bytes it knows are durable): when it closes, and whenever the log has grown
 * {@link SUMMARY_EVERY_BYTES} past the last sidecar — never per append. Written to a temporary
 * file and renamed over the old one, not fsynced: a crash loses at most a sidecar, never a log.
 *
 * A sidecar is used only if it is of this log: the crc of the header line (a session created
 * again under the same id has another, or create() deleted its sidecar) and the crc of the line
 * that ends at `byteOffset`, which must be the last event the fold counted (a file replaced,
 * rolled back or zeroed there by a crash has other bytes; the line holds the event's seq and time). Anything else — no sidecar, a damaged one, a format not read, one past the
 * file's end or its valid length — and `list()` reads the whole log instead: the same answer.
 * A format-1 sidecar (written before the fold counted each queue) is used as well, for the fields
 * it has: its fold folds on the pending total alone and the list entry has no `queued`.
 */
const SUMMARY_SUFFIX = '.summary.json'
/**
 * The format this build writes: 2, the fold counts each inbox queue (`queued`). It reads that and
 * format 1, whose fold has the pending total alone (`pending`, which cannot be split: listed
 * without `queued`, until the session's writer writes the sidecar again from a full read); any
 * other is not read (the list folds that log whole).
 */
const SUMMARY_FORMAT = 2
/** The format written before per-queue counts, still read. */
const PENDING_ONLY_FORMAT = 1
/** The log grows this much past the last sidecar before its writer writes a new one. */
export const SUMMARY_EVERY_BYTES = 64 * 1024
/** For a last line too long to check whole, the bytes of its end that a sidecar's crc covers. */
const CHECK_BYTES = 64
/** How far back the writer looks for the start of the log's last line (a longer line's end alone is checked). */
const LINE_SEARCH_BYTES = 64 * 1024
const NEWLINE = 0x0a

/** A sidecar, as read back. */
export interface KeptSummary {
  headerCrc: number
  byteOffset: number
  /** Where the line that ends at `byteOffset` starts; -1 when it was too long to look for. */
  lineStart: number
  check: number
  fold: LogSummaryFold
}

/** The sidecar's path for the session file `file` (`<dir>/<id>.jsonl`): `<dir>/<id>.summary.json`. */
export function summaryPath(file: string): string {
  return file.slice(0, -FILE_SUFFIX.length) + SUMMARY_SUFFIX
}

/**
 * Writes the sidecar of `file` for its first `size` bytes (durable, ending a line), whose events
 * fold to `fold`, if `file` is still the file open as `written` (the writer's handle), after
 * reading the bytes it checks: to `<sidecar>.tmp`, created O_EXCL, then renamed over the sidecar.
 * Nothing without `fs.rename` (a custom file system may lack it: `list()` then reads whole logs).
 * Rejects on failure (the caller ignores it: a cache), leaving no temporary file when it can.
 */
export async function writeSummaryFile(
  fs: StoreFileSystem, file: string, written: StoreFileHandle, at: SummaryAt,
): Promise<void> {
  const fold = at.fold.state()
  // Never a fold whose queues are not known under the format that has them (the writer's fold is
  // of a full read; this keeps one resumed from a format-1 sidecar from ever being written as format 2).
  if (fs.rename === undefined || !('queued' in fold)) return
  // Read through a handle of its own: the writer's may be write-only (a created file's).
  const handle = await fs.open(file, 'r')
  let text: string | undefined
  try {
    // The file the writer wrote, still under its name: not one put there since (deleted and replaced).
    if (!(await sameFile(written, handle))) return
    text = await summaryText((from, to) => readAt(handle, from, to), at, fold)
  } finally {
    await handle.close().catch(() => {})
  }
  if (text === undefined) return
  const path = summaryPath(file)
  const temp = `${path}.tmp`
  let out: StoreFileHandle
  try {
    out = await fs.open(temp, 'wx', 0o600)
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error
    // Left by a crash (only the session's writer writes it, under the session's lock).
    await fs.unlink(temp)
    out = await fs.open(temp, 'wx', 0o600)
  }
  try {
    try {
      await writeFully(out, Buffer.from(text, 'utf8'), 0)
    } finally {
      await out.close()
    }
    await fs.rename(temp, path)
  } catch (error) {
    await fs.unlink(temp).catch(() => {})
    throw error
  }
}

/** What a sidecar summarises: the log's first `size` bytes (whole lines), whose header line has crc `headerCrc` and whose events fold to `fold`. */
export interface SummaryAt {
  size: number
  headerCrc: number
  fold: LogSummaryFold
}

/** Bytes `[from, to)` of a log, or `undefined` if it is shorter: read from a handle, or sliced from the bytes in memory. */
type ReadBytes = (from: number, to: number) => Promise<Buffer | undefined>

/** The sidecar's text for `at` (`fold`: its fold's state), reading the log's last line through `read`; `undefined` if the log is shorter than `at.size`. */
async function summaryText(read: ReadBytes, at: SummaryAt, fold: object): Promise<string | undefined> {
  const lineStart = await lastLineStart(read, at.size)
  const checked = await checkedBytes(read, lineStart, at.size)
  if (checked === undefined) return undefined
  return JSON.stringify({
    bosun: 'summary', format: SUMMARY_FORMAT, headerCrc: at.headerCrc, byteOffset: at.size, lineStart, check: crc32(checked), fold,
  })
}

/**
 * Whether `kept` (the sidecar's text, {@link readSummaryText}) is, byte for byte, the one a writer
 * would write for the log `bytes` (the session file's whole content, as open() leaves it) with
 * `at`. A writer opened on such a log starts as if it had just written it: closing it without
 * appending writes no sidecar — no reads of the log, no new file and no rename for nothing, on
 * every reopen of an idle session. Anything else (no sidecar, an older one, another format, a
 * different fold) is written again at close, as before.
 */
export async function summaryIsCurrent(kept: string | undefined, bytes: Buffer, at: Omit<SummaryAt, 'size'>): Promise<boolean> {
  const fold = at.fold.state()
  if (kept === undefined || !('queued' in fold)) return false
  const expected = await summaryText(async (from, to) => (to <= bytes.length ? bytes.subarray(from, to) : undefined), { ...at, size: bytes.length }, fold)
  return expected === kept
}

/** Whether two handles are of the same file, which still has a name (as far as the file system's `stat` tells). */
async function sameFile(a: StoreFileHandle, b: StoreFileHandle): Promise<boolean> {
  const [first, second] = [await a.stat(), await b.stat()]
  if (first.nlink === 0) return false
  return first.ino === undefined || (first.ino === second.ino && first.dev === second.dev)
}

/**
 * Deletes the sidecar, not durably: for create(), as with the record of a valid length (a
 * temporary one left by a crash is harmless: the next writer replaces it). Never fails: a
 * sidecar left is checked against the new file before any use.
 */
export async function unlinkSummaryFile(fs: StoreFileSystem, file: string): Promise<void> {
  await fs.unlink(summaryPath(file)).catch(() => {})
}

/**
 * The fold of the whole log of the session file open as `handle`, from its sidecar `kept` and
 * the file's bytes past it, or `undefined` when the sidecar is not of this log (the caller reads
 * the whole log). `headerCrc`, `headerBytes`: of the file's header line; `end`: the file's length,
 * or its valid length if less. Throws CORRUPT_LOG for damage in the lines past the sidecar.
 */
export async function foldFromSummaryFile(
  kept: KeptSummary, file: string, handle: StoreFileHandle, headerCrc: number, headerBytes: number, end: number,
): Promise<LogSummaryFold | undefined> {
  if (kept.headerCrc !== headerCrc || kept.byteOffset < headerBytes || kept.byteOffset > end || kept.lineStart >= kept.byteOffset) return undefined
  const checked = await checkedBytes((from, to) => readAt(handle, from, to), kept.lineStart, kept.byteOffset)
  if (checked === undefined || crc32(checked) !== kept.check || !endsWithEvent(checked, kept)) return undefined
  // From the newline that ends the summarised lines (parseEvents cuts a torn line back to it).
  const bytes = await readAt(handle, kept.byteOffset - 1, end)
  if (bytes === undefined || bytes[0] !== NEWLINE) return undefined
  const fold = kept.fold
  for (const event of parseEvents(bytes, 1, fold.length, file).events) fold.add(event)
  return fold
}

/** Whether the last line checked is the last event the fold counted (the header, for a fold of none); not known for a line too long to check whole. */
function endsWithEvent(checked: Buffer, kept: KeptSummary): boolean {
  if (kept.lineStart < 0) return true
  const expected = kept.fold.length - 1
  if (kept.lineStart === 0) return expected === -1
  try {
    return (JSON.parse(checked.toString('utf8', 1)) as { seq?: unknown }).seq === expected
  } catch {
    return false
  }
}

/**
 * Where the line that ends at `offset` starts, looking back at most {@link LINE_SEARCH_BYTES};
 * -1 for a longer line (its end alone is then checked).
 */
async function lastLineStart(read: ReadBytes, offset: number): Promise<number> {
  const stop = Math.max(0, offset - 1 - LINE_SEARCH_BYTES)
  for (let to = offset - 1; to > stop; ) {
    const from = Math.max(stop, to - 4096)
    const bytes = await read(from, to)
    if (bytes === undefined) return -1
    const newline = bytes.lastIndexOf(NEWLINE)
    if (newline >= 0) return from + newline + 1
    to = from
  }
  return stop === 0 ? 0 : -1
}

/**
 * The bytes a sidecar's crc covers: the whole line that ends at `offset`, with the newline before
 * it (an event's line holds its seq and time, which tell one event from another), or, for a line
 * too long to look for its start, its last {@link CHECK_BYTES} bytes. Undefined if the file is
 * shorter, or if `lineStart` is not where that line starts.
 */
async function checkedBytes(read: ReadBytes, lineStart: number, offset: number): Promise<Buffer | undefined> {
  const bytes = await read(lineStart < 0 ? Math.max(0, offset - CHECK_BYTES) : Math.max(0, lineStart - 1), offset)
  if (bytes === undefined || lineStart < 0) return bytes
  const inside = bytes.indexOf(NEWLINE, lineStart === 0 ? 0 : 1)
  return inside === bytes.length - 1 && (lineStart === 0 || bytes[0] === NEWLINE) ? bytes : undefined
}

/**
 * The sidecar of `file`, if there is a well-formed one of a format this build reads (its fold as
 * that format has it: counts per queue, or the pending total alone). A link or anything but a
 * regular file under its name is not read.
 */
export async function readSummaryFile(fs: StoreFileSystem, file: string): Promise<KeptSummary | undefined> {
  const text = await readSummaryText(fs, file)
  if (text === undefined) return undefined
  let value: Partial<Omit<KeptSummary, 'fold'>> & { bosun?: unknown; format?: unknown; fold?: unknown }
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (value?.bosun !== 'summary' || (value.format !== SUMMARY_FORMAT && value.format !== PENDING_ONLY_FORMAT)) return undefined
  // Each format's fold: per-queue counts in format 2, the total alone in format 1.
  const counted = typeof value.fold === 'object' && value.fold !== null && (value.fold as { queued?: unknown }).queued !== undefined
  if (counted !== (value.format === SUMMARY_FORMAT)) return undefined
  const { headerCrc, byteOffset, lineStart, check } = value
  if (!Number.isSafeInteger(headerCrc) || !Number.isSafeInteger(byteOffset) || byteOffset! < 1 || !Number.isSafeInteger(check)) return undefined
  if (!Number.isSafeInteger(lineStart) || lineStart! < -1) return undefined
  const fold = LogSummaryFold.fromState(value.fold)
  return fold && { headerCrc: headerCrc!, byteOffset: byteOffset!, lineStart: lineStart!, check: check!, fold }
}

/**
 * The sidecar's text as it is on disk, or `undefined`: none, unreadable, or a link or anything but
 * a regular file under its name (never followed or read). Never rejects.
 */
export async function readSummaryText(fs: StoreFileSystem, file: string): Promise<string | undefined> {
  try {
    // 'r' opens O_NOFOLLOW | O_NONBLOCK (file-system.ts): a link fails, a FIFO does not block.
    const handle = await fs.open(summaryPath(file), 'r')
    try {
      const stat = await handle.stat()
      if (typeof stat.isFile === 'function' && !stat.isFile()) return undefined
      return (await handle.readFile()).toString('utf8')
    } finally {
      await handle.close().catch(() => {})
    }
  } catch {
    return undefined
  }
}

/** Bytes `[from, to)` of the file, or `undefined` if it is shorter (cut meanwhile). */
export async function readAt(handle: StoreFileHandle, from: number, to: number): Promise<Buffer | undefined> {
  const bytes = Buffer.allocUnsafe(to - from)
  for (let filled = 0; filled < bytes.length; ) {
    const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, from + filled)
    if (bytesRead === 0) return undefined
    filled += bytesRead
  }
  return bytes
}
