// summary(id) and readEvents(id, fromSeq, limit) on JSONL files, beyond the store contract's small
// logs: a range found by a binary search over byte offsets (range.ts) is exactly what read() gives
// for it — across torn tails, lines longer than a probe or a scan, a valid-length record, a dead
// process's journal and a writer appending in another process — and reads about what it returns.
import { spawn } from 'node:child_process'
import { appendFile, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createUserMessage, summarizeLog, type SessionEvent, type Store } from '@bosun/core'
import { nodeFileSystem } from './file-system.js'
import { crc32 } from './journal-format.js'
import { jsonlStore } from './store.js'
import { summaryPath } from './summary-file.js'
import { copyStoreFiles, cutFile } from './testing/crash-image.js'
import { event, fileText, header, rejection, sessionFile } from './testing/fixtures.js'
import { countingFs, type CountingFs } from './testing/counting-fs.js'
import { tempDir } from './testing/recording-fs.js'
import { writeValidLength } from './valid-length.js'

const CHILD = fileURLToPath(new URL('../test/summary-child.mjs', import.meta.url))

let dir: string
let cleanup: () => Promise<void>
const stores: Store[] = []
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  await cleanup()
})

type RangeStore = Store & Required<Pick<Store, 'read' | 'summary' | 'readEvents'>> & { fs: CountingFs }

/** A store over `dir` (or `at`) on a file system counting what it reads of the logs, closed after the test. */
function storeAt(at = dir): RangeStore {
  const fs = countingFs()
  const store = jsonlStore({ dir: at, batchWindowMs: 0, fs })
  stores.push(store)
  return Object.assign(store as RangeStore, { fs })
}

/** An event whose line is about `bytes` long (its text repeated). */
const sized = (seq: number, bytes: number): SessionEvent => event(seq, `${seq} ✓ `.padEnd(Math.max(0, bytes - 80), String.fromCharCode(97 + (seq % 26))))

/**
 * Every range of `id` that `froms` × `limits` ask for equals the same slice of read()'s events;
 * `whole`: whether readEvents may read the log whole (a dead process's records), else it must not.
 */
async function expectRangesOfRead(store: RangeStore, id: string, froms: Iterable<number>, limits: readonly number[], whole = false): Promise<SessionEvent[]> {
  const { events } = (await store.read(id))!
  const before = store.fs.wholeReads
  for (const from of froms) {
    for (const limit of limits) expect(await store.readEvents(id, from, limit), `from ${from}, limit ${limit}`).toEqual(events.slice(from, from + limit))
  }
  if (!whole) expect(store.fs.wholeReads, 'whole reads of the log').toBe(before)
  return [...events]
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

describe('jsonl store — readEvents(id, fromSeq, limit)', () => {
  it('reads about the bytes of the range, not the log: a page in the middle or at the end of a 10 MB log', async () => {
    const events = range(0, 20_000).map((seq) => sized(seq, 500))
    await (await storeAt().create(header('big'), events)).writer.close()
    const store = storeAt()
    const { fs } = store
    for (const [from, limit] of [[10_000, 10], [19_990, 100], [0, 5], [12_345, 1], [7_777, 300]] as const) {
      fs.logBytes = 0
      expect(await store.readEvents('big', from, limit)).toEqual(events.slice(from, from + limit))
      // A search's probes and scan, the file's end and the range's lines: under 2% of the log's 10 MB.
      expect(fs.logBytes).toBeLessThan(150_000 + limit * 1_000)
    }
    fs.logBytes = 0
    expect(await store.readEvents('big', 20_000, 10)).toEqual([])
    expect(fs.logBytes).toBeLessThan(150_000)
  })

  it('finds every seq among lines longer than a probe (4 KiB) and than a scan (64 KiB), and short ones between them', async () => {
    const sizes = [200, 70_000, 150, 5_000, 300_000, 90, 90, 66_000, 4_200, 130_000, 100, 100, 100, 80_000, 200]
    const events = sizes.map((bytes, seq) => sized(seq, bytes))
    const store = storeAt()
    await (await store.create(header('long'), events)).writer.close()
    await expectRangesOfRead(store, 'long', range(0, events.length + 2), [1, 2, 5, 1000])
  })

  it('leaves a torn tail out without cutting it, whatever the range: a partial line, a last line that does not parse, NUL bytes', async () => {
    const events = [200, 90_000, 300, 120].map((bytes, seq) => sized(seq, bytes))
    const whole = fileText(header('t'), events)
    const next = JSON.stringify(sized(4, 5_000)) + '\n'
    const tails = {
      partial: next.slice(0, 40),
      'partial long line': next.slice(0, 4_500),
      'unparsable last line': next.slice(0, 30) + '\0'.repeat(20) + '\n',
      'NUL bytes': '\0'.repeat(9_000),
      'a line, then NUL bytes': next.slice(0, 100) + '\0'.repeat(5_000),
      'a last line of NUL bytes': '\0'.repeat(5_000) + '\n',
      'a last line cut before its seq': next.slice(0, 4) + '\0'.repeat(100) + '\n',
    }
    for (const [kind, tail] of Object.entries(tails)) {
      const file = sessionFile(dir, 't')
      await writeFile(file, whole + tail)
      const store = storeAt()
      const read = await expectRangesOfRead(store, 't', range(0, 7), [1, 2, 1000])
      expect(read, kind).toEqual(events)
      expect(await readFile(file, 'utf8'), kind).toBe(whole + tail)
    }
    // Both lines longer than a scan: the search's upper bound closes on the torn line, which is the end.
    const long = [sized(0, 90_000)]
    await writeFile(sessionFile(dir, 'u'), fileText(header('u'), long) + '{"s' + '\0'.repeat(70_000) + '\n')
    expect(await expectRangesOfRead(storeAt(), 'u', range(0, 3), [1, 1000])).toEqual(long)
  })

  it('reads within a recorded valid length: the whole lines of a rejected batch past it are not events', async () => {
    const events = range(0, 30).map((seq) => sized(seq, 3_000))
    const file = sessionFile(dir, 'v')
    const kept = fileText(header('v'), events.slice(0, 20))
    await writeFile(file, fileText(header('v'), events))
    const headerLine = fileText(header('v'), [])
    await writeValidLength(nodeFileSystem, file, { length: Buffer.byteLength(kept), headerCrc: crc32(Buffer.from(headerLine)) })
    const store = storeAt()
    const read = await expectRangesOfRead(store, 'v', [0, 5, 19, 20, 25], [1, 3, 1000])
    expect(read).toEqual(events.slice(0, 20))
    expect((await store.summary('v'))!.length).toBe(20)
  })

  it('gives the events a dead process acknowledged through its journal, as read() replays them', async () => {
    const live = join(dir, 'live')
    const image = join(dir, 'image')
    const writer = jsonlStore({ dir: live, batchWindowMs: 0, journal: true })
    stores.push(writer)
    const { writer: appending } = await writer.create(header('j'))
    const events = range(0, 40).map((seq) => sized(seq, 800))
    for (const e of events) appending.append(e)
    await appending.flush()
    // The process "dies" (the copy has no lock files) before its session file had the last 15 events.
    await mkdir(image)
    await copyStoreFiles(live, image)
    await cutFile(sessionFile(image, 'j'), Buffer.byteLength(fileText(header('j'), events.slice(0, 25))))
    const store = storeAt(image)
    const read = await expectRangesOfRead(store, 'j', [0, 20, 24, 25, 39, 40], [1, 10, 1000], true)
    expect(read).toEqual(events)
    expect(await store.summary('j')).toMatchObject({ length: 40 })
  })

  it('refuses damage in the range as read() does (CORRUPT_LOG, its line), and a seq the log skips; damage outside the range is not read', async () => {
    const events = range(0, 50).map((seq) => sized(seq, 2_000))
    const lines = fileText(header('d'), events).split('\n')
    lines[31] = lines[31]!.slice(0, 60) // event 30's line, line 32 of the file
    await writeFile(sessionFile(dir, 'd'), lines.join('\n'))
    const store = storeAt()
    expect((await rejection(store.readEvents('d', 28, 5))).details).toMatchObject({ line: 32 })
    expect((await rejection(store.readEvents('d', 30, 1))).code).toBe('CORRUPT_LOG')
    // A range after the damage is not what the search reads: the events are those of the file.
    expect(await store.readEvents('d', 40, 3)).toEqual(events.slice(40, 43))
    // No sidecar: summary(id) reads the log, and says what read() says (list() lists it without the fields).
    expect((await rejection(store.summary('d'))).details).toMatchObject({ line: 32 })
    expect((await store.list())[0]).toEqual({ id: 'd', createdAt: header('d').createdAt, delegation: null })

    // A missing event (seq 30): a range from it is refused as read() refuses the log; one after it is read.
    lines.splice(31, 1)
    await writeFile(sessionFile(dir, 'd'), lines.join('\n'))
    const read = await rejection(store.read('d'))
    expect(await rejection(store.readEvents('d', 30, 2))).toMatchObject({ code: 'CORRUPT_LOG', message: read.message })
    expect(await store.readEvents('d', 35, 2)).toEqual(events.slice(35, 37))
  })

  it('arguments: an unknown id is empty, a bad id INVALID_SESSION_ID, fromSeq past the end empty, limit 1 one event, limit 0 INVALID_ARGUMENT', async () => {
    const events = range(0, 12).map((seq) => sized(seq, 300))
    const store = storeAt()
    await (await store.create(header('a'), events)).writer.close()
    expect(await store.readEvents('nobody', 0)).toEqual([])
    expect(await store.summary('nobody')).toBeUndefined()
    for (const id of ['../a', 'a/b', '', '.hidden']) {
      expect((await rejection(store.readEvents(id, 0))).code).toBe('INVALID_SESSION_ID')
      expect((await rejection(store.summary(id))).code).toBe('INVALID_SESSION_ID')
    }
    expect(await store.readEvents('a', 12)).toEqual([])
    expect(await store.readEvents('a', 1_000_000, 5)).toEqual([])
    expect(await store.readEvents('a', 11, 1)).toEqual([events[11]])
    expect(await store.readEvents('a', 0, 1)).toEqual([events[0]])
    expect(await store.readEvents('a', 4)).toEqual(events.slice(4))
    for (const [from, limit] of [[0, 0], [0, -1], [0, 1.5], [-1, 1], [0.5, 1], [Number.NaN, 1]] as const) {
      expect((await rejection(store.readEvents('a', from, limit))).code).toBe('INVALID_ARGUMENT')
    }
    // Frozen, as read() gives them.
    expect(Object.isFrozen((await store.readEvents('a', 3, 1))[0]!.data)).toBe(true)
  })

  it('any log, any tail (property): every range equals the slice of read()', async () => {
    const line = fc.oneof({ arbitrary: fc.integer({ min: 80, max: 600 }), weight: 6 }, { arbitrary: fc.integer({ min: 3_000, max: 9_000 }), weight: 2 }, { arbitrary: fc.integer({ min: 60_000, max: 140_000 }), weight: 1 })
    const tail = fc.constantFrom('', 'partial', 'unparsable', 'zeros', 'no seq')
    let n = 0
    await fc.assert(
      // `reordered`: lines written with their keys in another order (by hand, another tool): read() takes them, the search parses them whole.
      fc.asyncProperty(fc.array(line, { maxLength: 40 }), tail, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), async (sizes, kind, picks, reordered) => {
        const id = `p${n++}`
        const events = sizes.map((bytes, seq) => sized(seq, bytes))
        const next = JSON.stringify(sized(events.length, 4_000)) + '\n'
        const torn = { '': '', partial: next.slice(0, 50), unparsable: next.slice(0, 20) + '\0\0\n', zeros: '\0'.repeat(6_000), 'no seq': '{"s' + '\0'.repeat(70_000) + '\n' }[kind]
        const lines = events.map((e) => JSON.stringify(reordered[e.seq % reordered.length] ? { type: e.type, data: e.data, time: e.time, seq: e.seq } : e) + '\n')
        await writeFile(sessionFile(dir, id), fileText(header(id), []) + lines.join('') + torn)
        const store = storeAt()
        const froms = new Set([0, events.length, events.length + 1, ...picks.map((p) => p % (events.length + 1))])
        await expectRangesOfRead(store, id, froms, [1, 2, 7, 1000])
        await store.close()
      }),
      { numRuns: 25 },
    )
  }, 60_000)
})

describe('jsonl store — summary(id)', () => {
  /** Session `id`'s list entry without its delegation, as summary(id) must give it. */
  async function listedEntry(store: Store, id: string) {
    const { delegation: _, ...entry } = (await store.list()).find((item) => item.id === id)!
    return entry
  }

  it("is the list's entry and a full read's summary: a sidecar behind the log (folded on), one of another file with the same header (not used), none", async () => {
    const messages = (from: number, count: number, prefix: string) =>
      range(from, from + count).map((seq) => Object.freeze({ seq, time: 1_700_000_000_000 + seq, type: seq % 3 === 0 ? 'turn/start' : 'user/message', data: seq % 3 === 0 ? { turn: seq / 3 + 1 } : createUserMessage(`${prefix} ${seq}`, { id: `${prefix}${seq}` }) }) as SessionEvent)
    const store = storeAt()
    const { writer } = await store.create(header('s'))
    for (const e of messages(0, 30, 'first')) writer.append(e)
    await writer.close()
    const sidecar = await readFile(summaryPath(sessionFile(dir, 's')), 'utf8')
    const file = sessionFile(dir, 's')
    const expectSummary = async (length: number) => {
      const log = (await store.read('s'))!
      expect(log.events).toHaveLength(length)
      const summary = await store.summary('s')
      expect(summary).toEqual({ id: 's', createdAt: header('s').createdAt, ...summarizeLog(log.header, log.events) })
      expect(summary).toEqual(await listedEntry(store, 's'))
    }
    await expectSummary(30)
    // Lines appended past the sidecar's offset (as by a writer that has not written a sidecar since): folded on.
    await appendFile(file, messages(30, 9, 'later').map((e) => JSON.stringify(e) + '\n').join(''))
    await expectSummary(39)
    // The file replaced by another log of the same header, as long: the sidecar's check fails, the log is read whole.
    await writeFile(file, fileText(header('s'), messages(0, 39, 'other')))
    await writeFile(summaryPath(file), sidecar)
    await expectSummary(39)
    expect((await store.summary('s'))!.firstPrompt).toBe('other 1')
    // No sidecar.
    await unlink(summaryPath(file))
    await expectSummary(39)
  })

  it('a dead journal that cannot be read: summary(id) reads the log whole, as list() does, and gives the same entry', async () => {
    // Session `s` written without the journal and closed (its sidecar written); a dead journal in the folder holds another session's batch.
    const live = join(dir, 'live')
    const image = join(dir, 'image')
    const plain = jsonlStore({ dir: live, batchWindowMs: 0, journal: false })
    const s = await plain.create(header('s'))
    for (const e of range(0, 30).map((seq) => sized(seq, 400))) s.writer.append(e)
    await plain.close()
    const writing = jsonlStore({ dir: live, batchWindowMs: 0, journal: true })
    stores.push(writing)
    const other = await writing.create(header('other'))
    other.writer.append(sized(0, 100))
    await other.writer.flush()
    await mkdir(image)
    await copyStoreFiles(live, image)
    await writeFile(summaryPath(sessionFile(image, 's')), await readFile(summaryPath(sessionFile(live, 's'))))
    // Readable, the journal has nothing of `s`: its sidecar is used.
    const readable = storeAt(image)
    const entry = await listedEntry(readable, 's')
    expect(readable.fs.wholeReads).toBe(1) // `other`'s
    expect(await readable.summary('s')).toEqual(entry)
    expect(readable.fs.wholeReads).toBe(1)
    // Unreadable (EIO): what it holds is not known, and both read the log whole.
    const unreadable = storeAt(image)
    const open = unreadable.fs.open.bind(unreadable.fs)
    unreadable.fs.open = async (path, flags, mode) => {
      if (path.includes('.bosun-journal-')) throw Object.assign(new Error('EIO: i/o error, open'), { code: 'EIO' })
      return open(path, flags, mode)
    }
    expect(await unreadable.summary('s')).toEqual(entry)
    expect(unreadable.fs.wholeReads).toBe(1)
    expect(await listedEntry(unreadable, 's')).toEqual(entry)
    expect(unreadable.fs.wholeReads).toBe(3)
  })

  it('a header the list leaves out: summary(id) says what read() says', async () => {
    await writeFile(sessionFile(dir, 'h'), '{"bosun":"session","id":"other","version":1,"createdAt":1}\n')
    await writeFile(sessionFile(dir, 'i'), '{"bosun":"session","id":"i"')
    const store = storeAt()
    expect(await store.list()).toEqual([])
    for (const id of ['h', 'i']) {
      const read = await rejection(store.read(id))
      const summary = await rejection(store.summary(id))
      expect(summary.code).toBe('CORRUPT_LOG')
      expect(summary.message).toBe(read.message)
    }
  })
})

describe('jsonl store — a session written in another process meanwhile', () => {
  it('every summary(id) is of a prefix of the log, and every range read up to its length is that of the log', async () => {
    const store = storeAt()
    const all = range(0, 900).map((seq) => sized(seq, seq % 97 === 0 ? 70_000 : 400))
    await (await store.create(header('w'), all.slice(0, 20))).writer.close()
    const eventsFile = join(dir, 'events.json')
    await writeFile(eventsFile, JSON.stringify(all.slice(20)))
    const child = spawn(process.execPath, [CHILD, dir, 'w', eventsFile, '6'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    let running = true
    // 'close', not 'exit': the child's last line may still be in the pipe when 'exit' comes.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
      running = false
      resolve(code)
    }))
    let last = 0
    let reads = 0
    while (running) {
      const { length } = (await store.summary('w'))!
      expect(length).toBeGreaterThanOrEqual(last)
      last = length
      // The log's end as a host reads it back from a summary's length, and a range past it (the writer's newest lines).
      const from = Math.max(0, length - 13)
      const whole = store.fs.wholeReads
      expect(await store.readEvents('w', from, length - from)).toEqual(all.slice(from, length))
      const ahead = await store.readEvents('w', length, 50)
      expect(ahead).toEqual(all.slice(length, length + ahead.length))
      expect(store.fs.wholeReads).toBe(whole)
      reads++
    }
    expect(await exited).toBe(0)
    expect(output).toBe(`DONE ${all.length}\n`)
    expect(reads).toBeGreaterThan(0)
    expect((await store.summary('w'))!.length).toBe(all.length)
    expect(await store.readEvents('w', 850, 100)).toEqual(all.slice(850))
  }, 120_000)
})
