// The store journal's records (journal-format.ts) and their replay into a session file (replay.ts).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { crc32, crc32Js, decodeRecords, encodeRecord, isJournalName, type JournalRecord } from './journal-format.js'
import { headerCrcOf, replayRecords, wholeLinesEnd } from './replay.js'

const bytes = (text: string) => Buffer.from(text, 'utf8')
const HEAD = bytes('{"bosun":"session","id":"s"}\n')
const HEAD_CRC = crc32(HEAD)
const lines = (...texts: string[]) => bytes(texts.map((t) => `{"seq":${t}}\n`).join(''))
const record = (offset: number, data: Buffer, headerCrc = HEAD_CRC, id = 's'): JournalRecord => ({ id, headerCrc, offset, bytes: data })

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
