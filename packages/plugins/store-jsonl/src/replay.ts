import { crc32, type JournalRecord } from './journal-format.js'

const NEWLINE = 0x0a

/**
 * What replaying a session's journal records into its file gives: the file's new content and the
 * first byte that differs from the old one (the caller writes from there, cuts the file to
 * `bytes.length` and fdatasyncs it).
 */
export interface Replayed {
  bytes: Buffer
  from: number
}

/** The crc32 of a session file's header line (newline included); `undefined` without a whole header line. */
export function headerCrcOf(file: Uint8Array): number | undefined {
  const end = Buffer.from(file.buffer, file.byteOffset, file.byteLength).indexOf(NEWLINE)
  return end < 0 ? undefined : crc32(file.subarray(0, end + 1))
}

/**
 * Replays `records` (one journal's records, in journal order) into the content of the session
 * file they name; `undefined` when nothing changes. A record is written for its file only (same
 * header line) and only where it continues the file's whole lines: its bytes must agree with
 * the lines already there where they overlap (replaying twice changes nothing), and it must not
 * start past their end. A record that disagrees or leaves a gap means the file was changed by
 * someone else since (rewritten, or a batch the journal never acknowledged): replay stops there
 * for this file, never overwriting a line. What lies past the last whole line (a torn line, a
 * crash's NUL bytes) is replaced by the replayed bytes.
 */
export function replayRecords(file: Buffer, records: readonly JournalRecord[]): Replayed | undefined {
  const headerCrc = headerCrcOf(file)
  if (headerCrc === undefined) return undefined
  let end = wholeLinesEnd(file)
  let content = file
  let from = Infinity
  for (const record of records) {
    if (record.headerCrc !== headerCrc) continue
    const recordEnd = record.offset + record.bytes.length
    if (record.offset > end) break
    const overlap = Math.min(end, recordEnd) - record.offset
    if (!content.subarray(record.offset, record.offset + overlap).equals(record.bytes.subarray(0, overlap))) break
    if (recordEnd <= end) continue
    content = Buffer.concat([content.subarray(0, record.offset), record.bytes])
    from = Math.min(from, end)
    end = recordEnd
  }
  return from === Infinity ? undefined : { bytes: content.subarray(0, end), from }
}

/** The length of the file's whole lines: up to its last newline, trailing NUL bytes ignored. */
export function wholeLinesEnd(file: Buffer): number {
  let end = file.length
  while (end > 0 && file[end - 1] === 0) end--
  return end === 0 ? 0 : file.lastIndexOf(NEWLINE, end - 1) + 1
}
