// The store journal's records (journal-format.ts) and their replay into a session file (replay.ts).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { LEGACY_RECORD_MAGIC, RECORD_MAGIC, RecordEncoder, crc32, crc32Js, decodeRecords, encodeRecord, isJournalName, sealRecord, type JournalRecord } from './journal-format.js'
import { headerCrcOf, replayRecords, wholeLinesEnd } from './replay.js'

const bytes = (text: string) => Buffer.from(text, 'utf8')
const HEAD = bytes('{"bosun":"session","id":"s"}\n')
const HEAD_CRC = crc32(HEAD)
const lines = (...texts: string[]) => bytes(texts.map((t) => `{"seq":${t}}\n`).join(''))
const record = (offset: number, data: Buffer, headerCrc = HEAD_CRC, id = 's'): JournalRecord => ({ id, headerCrc, offset, bytes: data })

/**
 * A record built field by field, independently of journal-format.ts (the u64 through BigInt):
 * "BJR2" with a generation, or without one a record of a journal written before generations ("BJR1").
 */
function referenceRecord(id: string, headerCrc: number, offset: number, data: Buffer, generation?: number): Buffer {
  const idBytes = bytes(id)
  const generationBytes = generation === undefined ? 0 : 4
  const body = Buffer.alloc(generationBytes + 2 + idBytes.length + 4 + 8 + data.length)
  if (generation !== undefined) body.writeUInt32LE(generation, 0)
  let at = body.writeUInt16LE(idBytes.length, generationBytes)
  at += idBytes.copy(body, at)
  at = body.writeUInt32LE(headerCrc, at)
  at = body.writeBigUInt64LE(BigInt(offset), at)
  data.copy(body, at)
  const prefix = Buffer.alloc(12)
  prefix.writeUInt32LE(generation === undefined ? LEGACY_RECORD_MAGIC : RECORD_MAGIC, 0)
  prefix.writeUInt32LE(crc32(body), 4)
  prefix.writeUInt32LE(body.length, 8)
  return Buffer.concat([prefix, body])
}

describe('records', () => {
  it('round-trip: id, header crc, offset (past 4 GiB too) and bytes, in order', () => {
    const a = encodeRecord('s-1', 7, 29, bytes('{"seq":0}\n'))
    const b = encodeRecord('é.x_2', 0xffffffff, 2 ** 40 + 3, bytes('{"seq":1} 🚢\n'))
    const { records, intactLength } = decodeRecords(Buffer.concat([a, b]))
    expect(intactLength).toBe(a.length + b.length)
    expect(records.map((r) => ({ ...r, bytes: r.bytes.toString() }))).toEqual([
      { id: 's-1', headerCrc: 7, offset: 29, bytes: '{"seq":0}\n' },
      { id: 'é.x_2', headerCrc: 0xffffffff, offset: 2 ** 40 + 3, bytes: '{"seq":1} 🚢\n' },
    ])
  })

  it('a torn tail, cut at every byte of the last record, leaves exactly the records before it', () => {
    const first = encodeRecord('s', 1, 10, bytes('{"seq":0}\n'))
    const last = encodeRecord('s', 1, 20, bytes('{"seq":1}\n{"seq":2}\n'))
    const whole = Buffer.concat([first, last])
    for (let cut = first.length; cut < whole.length; cut++) {
      const { records, intactLength } = decodeRecords(whole.subarray(0, cut))
      expect(records.map((r) => r.offset)).toEqual([10])
      expect(intactLength).toBe(first.length)
    }
    // Zero-filled blocks after the records (a crash after the size grew) are a torn tail too.
    expect(decodeRecords(Buffer.concat([whole, Buffer.alloc(4096)])).records).toHaveLength(2)
  })

  it('a checksum mismatch anywhere in a record ends the journal there', () => {
    const first = encodeRecord('s', 1, 10, bytes('{"seq":0}\n'))
    const second = encodeRecord('s', 1, 20, bytes('{"seq":1}\n'))
    const third = encodeRecord('s', 1, 30, bytes('{"seq":2}\n'))
    for (let at = 0; at < second.length; at++) {
      const damaged = Buffer.concat([first, second, third])
      damaged[first.length + at]! ^= 0x20
      expect(decodeRecords(damaged).records.map((r) => r.offset)).toEqual([10])
    }
  })

  it('the first record fixes the generation: a record of another one (what a reused journal has past its current records) ends the journal', () => {
    const sealed = (generation: number, offset: number) => {
      const r = encodeRecord('s', 1, offset, bytes(`{"seq":${offset}}\n`))
      sealRecord(r, generation)
      return r
    }
    // Generation 2 written from the start over generation 1's records: 1's are not read.
    const current = [sealed(2, 10), sealed(2, 20)]
    const reused = Buffer.concat([...current, sealed(1, 30), sealed(1, 40)])
    const { records, intactLength } = decodeRecords(reused)
    expect(records.map((r) => r.offset)).toEqual([10, 20])
    expect(intactLength).toBe(current[0]!.length + current[1]!.length)
    // The generation is under the crc: a record whose generation field is changed is torn.
    const forged = sealed(2, 10)
    forged.writeUInt32LE(3, 12)
    expect(decodeRecords(forged).records).toEqual([])
    // Before the first checkpoint everything is generation 0.
    expect(decodeRecords(Buffer.concat([sealed(0, 1), sealed(0, 2), sealed(5, 3)])).records.map((r) => r.offset)).toEqual([1, 2])
  })

  it('a journal written before generations (records "BJR1", without one) is still read', () => {
    const legacy = (offset: number, data: Buffer) => referenceRecord('s', HEAD_CRC, offset, data)
    const journal = Buffer.concat([legacy(29, lines('0')), legacy(39, lines('1')), Buffer.alloc(64)])
    expect(decodeRecords(journal).records).toEqual([record(29, lines('0')), record(39, lines('1'))])
  })

  it('a writer\'s record (RecordEncoder: the text encoded once, into the record) is the format byte for byte, and the file gets its bytes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
        // Whole lines or not, any UTF-16 (lone surrogates become U+FFFD, as Buffer.from makes them).
        fc.array(fc.string({ unit: fc.oneof(fc.constant('\ud83d'), fc.constant('🚢'), fc.constant('é'), fc.constant('\n'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })) }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (id, headerCrc, offset, parts, generation) => {
          const encoder = new RecordEncoder(id, headerCrc)
          // One encoder, several records: what it keeps of the session must not leak between them.
          for (const text of parts.length === 0 ? [''] : parts) {
            const { record: written, bytes: fileBytes } = encoder.encode(offset, text)
            expect(fileBytes).toEqual(bytes(text))
            sealRecord(written, generation)
            expect(written).toEqual(referenceRecord(id, headerCrc, offset, bytes(text), generation))
            // The file's bytes are the record's own (what is journaled is what the file got).
            expect(fileBytes.buffer).toBe(written.buffer)
            expect(decodeRecords(written).records).toEqual([{ id, headerCrc, offset, bytes: bytes(text) }])
          }
          expect(encodeRecord(id, headerCrc, offset, bytes(parts.join('')))).toEqual(referenceRecord(id, headerCrc, offset, bytes(parts.join('')), 0))
        },
      ),
    )
  })

  it('the JS CRC-32 equals zlib\'s (when this Node.js has it) and the known check value', () => {
    expect(crc32Js(bytes('123456789'))).toBe(0xcbf43926)
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (data) => crc32Js(data) === crc32(data)))
  })

  it('journal names never look like a session file', () => {
    expect(isJournalName('.bosun-journal-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0')).toBe(true)
    expect(isJournalName('.bosun-journal-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.lock')).toBe(false)
    expect(isJournalName('s.jsonl')).toBe(false)
  })
})

describe('replay into a session file', () => {
  it('appends what the file lacks and is idempotent', () => {
    const file = Buffer.concat([HEAD, lines('0')])
    const records = [record(HEAD.length, lines('0')), record(HEAD.length + lines('0').length, lines('1', '2'))]
    const once = replayRecords(file, records)!
    expect(once.bytes.toString()).toBe(Buffer.concat([HEAD, lines('0', '1', '2')]).toString())
    expect(once.from).toBe(file.length)
    expect(replayRecords(once.bytes, records)).toBeUndefined()
  })

  it('replaces a torn last line and a NUL tail, never a whole line', () => {
    const full = Buffer.concat([HEAD, lines('0', '1')])
    const records = [record(HEAD.length, lines('0', '1'))]
    const torn = Buffer.concat([HEAD, lines('0'), bytes('{"se'), Buffer.alloc(100)])
    expect(wholeLinesEnd(torn)).toBe(HEAD.length + lines('0').length)
    expect(replayRecords(torn, records)!.bytes).toEqual(full)
    expect(replayRecords(HEAD, records)!.bytes).toEqual(full)
  })

  it('stops at a record that disagrees with a whole line or leaves a gap, and skips records of another file', () => {
    const file = Buffer.concat([HEAD, lines('0')])
    const next = HEAD.length + lines('0').length
    // Another file under the same id (created again): not replayed at all.
    expect(replayRecords(file, [record(next, lines('1'), HEAD_CRC ^ 1)])).toBeUndefined()
    // Disagrees with the line there: the file was changed since; nothing is overwritten.
    expect(replayRecords(file, [record(HEAD.length, lines('9')), record(next, lines('1'))])).toBeUndefined()
    // A gap: replay stops before it.
    expect(replayRecords(file, [record(next + 5, lines('1'))])).toBeUndefined()
    const partial = replayRecords(file, [record(next, lines('1')), record(next + 100, lines('3'))])!
    expect(partial.bytes).toEqual(Buffer.concat([HEAD, lines('0', '1')]))
  })

  it('a failed round\'s record followed by its retry (the same lines and more, at the same offset) replays to the retry', () => {
    const at = HEAD.length
    const result = replayRecords(HEAD, [record(at, lines('0')), record(at, lines('0', '1'))])!
    expect(result.bytes).toEqual(Buffer.concat([HEAD, lines('0', '1')]))
  })

  it('a file without a whole header line is left alone', () => {
    expect(headerCrcOf(bytes('{"bosun":'))).toBeUndefined()
    expect(replayRecords(bytes('{"bosun":'), [record(0, HEAD)])).toBeUndefined()
  })
})
