import * as zlib from 'node:zlib'

/**
 * The store journal's on-disk records (see journal.ts for what the journal is for). A record says
 * "these bytes belong at this offset of this session's file", little-endian:
 *
 *   magic u32 | crc32 u32 | body length u32 | body:  generation u32 | id length u16 | id (UTF-8) | header crc32 u32 | offset u64 | bytes
 *
 * The crc covers the whole body. The header crc is the crc32 of the session file's header line
 * (newline included): a record is replayed only into the file it was written for, not into a
 * session deleted and created again under the same id. The journal file is reused from its start
 * after each checkpoint, overwriting what is there (an overwrite of blocks the file already has
 * needs no metadata in the fdatasync: see journal.ts), so what follows the last record written is
 * zeros or records of an earlier **generation**: a journal is read up to its first record that is
 * short, has the wrong magic, fails its crc or belongs to another generation than the first
 * record. That first invalid record is the torn tail of a round that was never acknowledged (each
 * round's records are written and fdatasynced together, and the next round starts only after that
 * sync, so only the last round's records can be torn), or the end of the current generation.
 *
 * Journals written before generations existed (magic "BJR1", no generation field, never reused)
 * are still read, so that a crashed process's journal is replayed by an upgraded one.
 */

/** "BJR2" read as a little-endian u32: marks the start of a record (with a generation). */
export const RECORD_MAGIC = 0x32524a42
/** "BJR1": a record of a journal written before generations (no generation field). */
export const LEGACY_RECORD_MAGIC = 0x31524a42
const PREFIX_BYTES = 12
const GENERATION_BYTES = 4
const FIXED_BODY_BYTES = GENERATION_BYTES + 2 + 4 + 8
const LEGACY_FIXED_BODY_BYTES = 2 + 4 + 8

/** Journal files are `<dir>/.bosun-journal-<uuid>`: a leading dot, so never a session id nor a `*.jsonl`. */
export const JOURNAL_PREFIX = '.bosun-journal-'
const JOURNAL_NAME = /^\.bosun-journal-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function isJournalName(name: string): boolean {
  return JOURNAL_NAME.test(name)
}

/** One record read back. */
export interface JournalRecord {
  id: string
  headerCrc: number
  offset: number
  bytes: Buffer
}

/**
 * Encodes a record of `bytes` written at `offset` of session `id`'s file, sealed in generation 0
 * (the journal re-seals every record it writes with its own generation, {@link sealRecord}).
 * The writer uses a {@link RecordEncoder} instead; this is the same record, for tests and tools.
 */
export function encodeRecord(id: string, headerCrc: number, offset: number, bytes: Uint8Array): Buffer {
  const record = new RecordEncoder(id, headerCrc).encodeBytes(offset, bytes)
  sealRecord(record, 0)
  return record
}

/**
 * A session writer's records. What is the same in every record of a session — the id and its
 * length, the header crc — is encoded once, here; a batch's text is UTF-8 encoded once, straight
 * into its record, and the session file gets those very bytes (a view into the record); the crc
 * is computed once, when the journal seals the record. This runs for every member of every commit
 * round, on the main thread, while the other sessions wait for the round's fdatasync
 * (docs/benchmarks.md, section 4).
 */
export class RecordEncoder {
  /** generation (filled when sealed) | id length u16 | id | header crc u32 */
  readonly #fixed: Buffer

  constructor(id: string, headerCrc: number) {
    const idBytes = Buffer.from(id, 'utf8')
    this.#fixed = Buffer.alloc(GENERATION_BYTES + 2 + idBytes.length + 4)
    let at = this.#fixed.writeUInt16LE(idBytes.length, GENERATION_BYTES)
    at += idBytes.copy(this.#fixed, at)
    this.#fixed.writeUInt32LE(headerCrc >>> 0, at)
  }

  /**
   * A record of `text` written at `offset`, and `bytes`: the text's UTF-8 encoding inside it. The
   * record is not sealed: the journal seals it ({@link sealRecord}) when it writes it, in its
   * generation then.
   */
  encode(offset: number, text: string): { record: Buffer; bytes: Buffer } {
    const length = Buffer.byteLength(text, 'utf8')
    const record = this.#allocate(offset, length)
    const head = record.length - length
    // Fills the rest exactly: byteLength counts what the UTF-8 encoder writes (a lone surrogate as U+FFFD).
    record.write(text, head, 'utf8')
    return { record, bytes: record.subarray(head) }
  }

  /** {@link encode} for bytes already encoded (unsealed too). */
  encodeBytes(offset: number, bytes: Uint8Array): Buffer {
    const record = this.#allocate(offset, bytes.length)
    record.set(bytes, record.length - bytes.length)
    return record
  }

  /** A record of `length` bytes at `offset`, everything but the bytes, the generation and the crc filled in. */
  #allocate(offset: number, length: number): Buffer {
    const record = Buffer.allocUnsafe(PREFIX_BYTES + this.#fixed.length + 8 + length)
    record.writeUInt32LE(RECORD_MAGIC, 0)
    record.writeUInt32LE(this.#fixed.length + 8 + length, 8)
    this.#fixed.copy(record, PREFIX_BYTES)
    // The offset, a u64, as two u32 (a file offset is below 2^53): no BigInt per record.
    const at = PREFIX_BYTES + this.#fixed.length
    record.writeUInt32LE(offset % 0x100000000, at)
    record.writeUInt32LE(Math.floor(offset / 0x100000000), at + 4)
    return record
  }
}

/** Sets the generation of an encoded record (in place) and its crc with it. */
export function sealRecord(record: Buffer, generation: number): void {
  record.writeUInt32LE(generation >>> 0, PREFIX_BYTES)
  record.writeUInt32LE(crc32(record.subarray(PREFIX_BYTES)), 4)
}

/**
 * Every intact record of the journal's current generation, in order, and the length they take
 * (what follows is a torn tail, zeros, or an earlier generation's records).
 */
export function decodeRecords(journal: Buffer): { records: JournalRecord[]; intactLength: number } {
  const records: JournalRecord[] = []
  let at = 0
  // Fixed by the first record: a journal holds one format, and one generation from its start.
  let magic: number | undefined
  let generation: number | undefined
  while (journal.length - at >= PREFIX_BYTES) {
    const recordMagic = journal.readUInt32LE(at)
    if (recordMagic !== (magic ??= recordMagic) || (magic !== RECORD_MAGIC && magic !== LEGACY_RECORD_MAGIC)) break
    const fixed = magic === RECORD_MAGIC ? FIXED_BODY_BYTES : LEGACY_FIXED_BODY_BYTES
    const bodyLength = journal.readUInt32LE(at + 8)
    const bodyStart = at + PREFIX_BYTES
    if (bodyLength < fixed || bodyLength > journal.length - bodyStart) break
    const body = journal.subarray(bodyStart, bodyStart + bodyLength)
    if (crc32(body) !== journal.readUInt32LE(at + 4)) break
    let field = 0
    if (magic === RECORD_MAGIC) {
      if (body.readUInt32LE(0) !== (generation ??= body.readUInt32LE(0))) break
      field = GENERATION_BYTES
    }
    const idLength = body.readUInt16LE(field)
    if (fixed + idLength > bodyLength) break
    const id = body.toString('utf8', field + 2, field + 2 + idLength)
    const headerCrc = body.readUInt32LE(field + 2 + idLength)
    const offset = Number(body.readBigUInt64LE(field + 6 + idLength))
    records.push({ id, headerCrc, offset, bytes: body.subarray(fixed + idLength) })
    at = bodyStart + bodyLength
  }
  return { records, intactLength: at }
}

/** CRC-32 (IEEE): zlib's native one where this Node.js has it (20.15+), else a table in JS. */
export const crc32: (bytes: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (bytes) => (zlib as unknown as { crc32(data: Uint8Array): number }).crc32(bytes) >>> 0
    : crc32Js

let table: Uint32Array | undefined

/** @internal The JS fallback, exported for its test. */
export function crc32Js(bytes: Uint8Array): number {
  table ??= makeTable()
  let crc = 0xffffffff
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

function makeTable(): Uint32Array {
  const result = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    result[n] = c >>> 0
  }
  return result
}
