// The store journal (journal.ts): one fdatasync per round for every session of it, checkpoints,
// failures, and recovery from a dead process's journal (recovery.ts).
import { spawn, spawnSync } from 'node:child_process'
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BosunError } from '@bosun/core'
import { jsonlStore } from './store.js'
import { StoreJournal, type JournalMember } from './journal.js'
import { decodeRecords, encodeRecord } from './journal-format.js'
import { copyStoreFiles, cutFile, journalFiles } from './testing/crash-image.js'
import { event, fileText, header, readSession, sessionFile } from './testing/fixtures.js'
import { recordingFs, tempDir, type FsCall } from './testing/recording-fs.js'
import { nodeFileSystem } from './file-system.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')
const batchOps = (calls: FsCall[]) =>
  calls.filter((c) => c.op === 'stat' || c.op === 'write' || c.op === 'datasync' || c.op === 'truncate').map((c) => `${c.op} ${isJournal(c) ? 'journal' : c.path.slice(dir.length + 1)}`)
const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout)

describe('one fdatasync per round, shared', () => {
  it('eight sessions flushing in the same tick: every file written, one journal write, one fdatasync — none of a session file', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: true })
    const ids = Array.from({ length: 8 }, (_, i) => `s${i}`)
    const writers = await Promise.all(ids.map(async (id) => (await store.create(header(id))).writer))
    fs.calls.length = 0
    writers.forEach((writer) => writer.append(event(0)))
    await Promise.all(writers.map((writer) => writer.flush()))
    const ops = batchOps(fs.calls)
    expect(ops.filter((op) => op.startsWith('datasync'))).toEqual(['datasync journal'])
    expect(ops.filter((op) => op === 'write journal')).toHaveLength(1)
    expect(ops.filter((op) => /^write s\d\.jsonl$/.test(op))).toHaveLength(8)
    for (const id of ids) expect(await readSession(dir, id)).toBe(fileText(header(id), [event(0)]))
    // Every batch is in the journal, each at its file's offset.
    const [journal] = await journalFiles(dir)
    const { records } = decodeRecords(await readFile(journal!))
    expect(records.map((r) => r.id).sort()).toEqual(ids)
    for (const r of records) expect(r.offset).toBe(Buffer.byteLength(fileText(header(r.id), [])))
    await store.close()
  })

  it('a single session stays at its floor: one fdatasync (the journal\'s) per flush', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: true })
    const { writer } = await store.create(header('s'))
    fs.calls.length = 0
    for (let seq = 0; seq < 3; seq++) {
      writer.append(event(seq))
      await writer.flush()
    }
    expect(batchOps(fs.calls)).toEqual(Array(3).fill(['stat s.jsonl', 'write s.jsonl', 'write journal', 'datasync journal']).flat())
    await store.close()
  })

  it('closing fdatasyncs each session file, then deletes the journal and its lock', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: true })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await writer.flush()
    const [journal] = await journalFiles(dir)
    await expect(stat(`${journal}.lock`)).resolves.toBeTruthy()
    fs.calls.length = 0
    await store.close()
    expect(batchOps(fs.calls)).toEqual(['datasync s.jsonl'])
    expect((await readdir(dir)).sort()).toEqual(['s.jsonl'])
  })
})

describe('one journal per store', () => {
  it('two stores of one folder keep a journal each; neither replays nor removes the other\'s live journal', async () => {
    const first = jsonlStore({ dir, batchWindowMs: 10_000, journal: true })
    const a = (await first.create(header('a'))).writer
    a.append(event(0))
    await a.flush()
    const [own] = await journalFiles(dir)
    const second = jsonlStore({ dir, batchWindowMs: 10_000, journal: true })
    const b = (await second.create(header('b'))).writer
    b.append(event(0))
    await b.flush()
    expect((await journalFiles(dir)).sort()).toEqual([own, (await journalFiles(dir)).find((path) => path !== own)].sort())
    expect((await second.read!('a'))!.events).toEqual([event(0)])
    await second.close()
    expect(await journalFiles(dir)).toEqual([own])
    await first.close()
    expect(await journalFiles(dir)).toEqual([])
  })

  it('journal: false writes no journal file', async () => {
    const store = jsonlStore({ dir, batchWindowMs: 10_000, journal: false })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await writer.flush()
    expect((await readdir(dir)).sort()).toEqual(['s.jsonl', 's.jsonl.lock'])
    await store.close()
  })
})

describe('failures', () => {
  it('the journal\'s fdatasync fails: every flush of the round is rejected, each file rolled back, the journal cut back; the retry loses nothing', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: true })
    const a = (await store.create(header('a'))).writer
    const b = (await store.create(header('b'))).writer
    a.append(event(0))
    b.append(event(0))
    await Promise.all([a.flush(), b.flush()])
    const [journal] = await journalFiles(dir)
    // The records; past them the journal holds zeros it grew by ahead of its writes.
    const committed = decodeRecords(await readFile(journal!)).intactLength
    expect((await stat(journal!)).size).toBeGreaterThan(committed)
    let armed = true
    fs.fail = (call) => (armed && call.op === 'datasync' && isJournal(call) ? ((armed = false), 'EIO') : undefined)
    a.append(event(1))
    b.append(event(1))
    const outcomes = await Promise.allSettled([a.flush(), b.flush()])
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome.status).toBe('rejected')
      const error = (outcome as PromiseRejectedResult).reason as BosunError
      expect(BosunError.is(error, 'STORE')).toBe(true)
      expect(error.message).toContain(sessionFile(dir, i === 0 ? 'a' : 'b'))
      expect(error.message).toContain('journal')
    }
    expect(await readSession(dir, 'a')).toBe(fileText(header('a'), [event(0)]))
    expect(await readSession(dir, 'b')).toBe(fileText(header('b'), [event(0)]))
    // Cut back to the records acknowledged before: the failed round's records (and zeros) are gone.
    expect((await stat(journal!)).size).toBe(committed)
    await Promise.all([a.flush(), b.flush()])
    await store.close()
    const reopened = jsonlStore({ dir })
    for (const id of ['a', 'b']) expect((await reopened.open(id))!.events).toEqual([event(0), event(1)])
    await reopened.close()
  })

  it('a session file whose own fdatasync fails at close: close rejects, and the journal is kept for recovery', async () => {
    const fs = recordingFs(undefined, { writeSync: true })
    const store = jsonlStore({ dir, fs, batchWindowMs: 10_000, journal: true })
    const { writer } = await store.create(header('s'))
    writer.append(event(0))
    await writer.flush()
    fs.fail = (call) => (call.op === 'datasync' && !isJournal(call) ? 'EIO' : undefined)
    await expect(store.close()).rejects.toMatchObject({ code: 'STORE' })
    const [journal] = await journalFiles(dir)
    expect(journal).toBeDefined()
    await expect(stat(`${journal}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
    // The lock is gone, so the journal is a dead one: the next store replays it and removes it.
    await cutFile(sessionFile(dir, 's'), Buffer.byteLength(fileText(header('s'), [])))
    const next = jsonlStore({ dir })
    expect((await next.open('s'))!.events).toEqual([event(0)])
    expect(await journalFiles(dir)).toEqual([])
    await next.close()
  })
})

describe('checkpoints', () => {
  it('once the journal holds the checkpoint size, the next flush fdatasyncs every file journaled since and cuts the journal', async () => {
    const journal = new StoreJournal(dir, nodeFileSystem, 100)
    const synced: string[] = []
    const member = (name: string): JournalMember => ({ syncFile: async () => void synced.push(name) })
    const [a, b, c] = [member('a'), member('b'), member('c')]
    await journal.sync(journal.stage(a, encodeRecord('a', 1, 0, Buffer.alloc(60, 0x61))))
    await journal.sync(journal.stage(b, encodeRecord('b', 1, 0, Buffer.alloc(60, 0x62))))
    expect(synced).toEqual([])
    expect((await stat(journal.path!)).size).toBeGreaterThan(100)
    await journal.sync(journal.stage(c, encodeRecord('c', 1, 0, Buffer.alloc(10, 0x63))))
    // a and b were synced before the cut; c's record is the only one left, c is still owed a sync.
    expect(synced.sort()).toEqual(['a', 'b', 'c'])
    expect(decodeRecords(await readFile(journal.path!)).records.map((r) => r.id)).toEqual(['c'])
    await journal.close()
  })

  it('a file that cannot be synced keeps the journal whole, and is tried again only after another checkpoint size', async () => {
    const journal = new StoreJournal(dir, nodeFileSystem, 100)
    let attempts = 0
    const failing: JournalMember = { syncFile: () => (attempts++, Promise.reject(new Error('EIO'))) }
    await journal.sync(journal.stage(failing, encodeRecord('a', 1, 0, Buffer.alloc(120))))
    await journal.sync(journal.stage(failing, encodeRecord('a', 1, 120, Buffer.alloc(20))))
    expect(attempts).toBe(1)
    await journal.sync(journal.stage(failing, encodeRecord('a', 1, 140, Buffer.alloc(10))))
    expect(attempts).toBe(1) // not once per flush
    await journal.sync(journal.stage(failing, encodeRecord('a', 1, 150, Buffer.alloc(120))))
    await journal.sync(journal.stage(failing, encodeRecord('a', 1, 270, Buffer.alloc(20))))
    expect(attempts).toBe(2)
    expect(decodeRecords(await readFile(journal.path!)).records).toHaveLength(5)
    journal.release(failing, false)
    await journal.close()
    expect(await journalFiles(dir)).toHaveLength(1)
  })
})

describe('recovery from a dead process\'s journal', () => {
  /** Runs a store, copies its files mid-way (a crash image), and returns the image folder. */
  async function crashImage(): Promise<string> {
    const live = join(dir, 'live')
    const store = jsonlStore({ dir: live, batchWindowMs: 10_000, journal: true })
    const a = (await store.create(header('a'))).writer
    const b = (await store.create(header('b'))).writer
    for (let seq = 0; seq < 3; seq++) {
      a.append(event(seq))
      b.append(event(seq))
      await Promise.all([a.flush(), b.flush()])
    }
    const image = join(dir, 'image')
    await mkdir(image)
    await copyStoreFiles(live, image)
    await store.close()
    // What a power loss leaves when no session file was synced since its creation.
    for (const id of ['a', 'b']) await cutFile(sessionFile(image, id), Buffer.byteLength(fileText(header(id), [])) + 7, 300)
    return image
  }

  it('the first store to open the folder replays every session, then deletes the journal', async () => {
    const image = await crashImage()
    const store = jsonlStore({ dir: image })
    expect((await store.open('a'))!.events).toEqual([0, 1, 2].map((seq) => event(seq)))
    expect(await journalFiles(image)).toEqual([])
    expect(await readSession(image, 'b')).toBe(fileText(header('b'), [0, 1, 2].map((seq) => event(seq))))
    await store.close()
  })

  it('a journal whose lock names a dead process is replayed; one whose owner lives is not', async () => {
    const image = await crashImage()
    const [journal] = await journalFiles(image)
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
    try {
      await writeFile(`${journal}.lock`, JSON.stringify({ pid: child.pid, host: hostname(), token: 'alive' }))
      const store = jsonlStore({ dir: image })
      expect((await store.read!('a'))!.events).toEqual([])
      await store.close()
    } finally {
      child.kill()
    }
    await writeFile(`${journal}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }))
    const store = jsonlStore({ dir: image })
    expect((await store.read!('a'))!.events).toHaveLength(3)
    expect((await store.open('a'))!.events).toHaveLength(3)
    expect(await journalFiles(image)).toEqual([])
    await expect(stat(`${journal}.lock`)).rejects.toMatchObject({ code: 'ENOENT' })
    await store.close()
  })

  it('open replays, under the session lock, a journal whose owner only looks alive (its lock written under another host name); read does not, and the journal stays', async () => {
    const image = await crashImage()
    const [journal] = await journalFiles(image)
    // What a container restarted under a new host name finds: its dead predecessor cannot be checked, so it counts as alive.
    await writeFile(`${journal}.lock`, JSON.stringify({ pid: 1, host: 'a-host-that-is-gone', token: 'elsewhere' }))
    const store = jsonlStore({ dir: image })
    expect((await store.read!('b'))!.events).toEqual([])
    expect((await store.open('a'))!.events).toEqual([0, 1, 2].map((seq) => event(seq)))
    expect(await readSession(image, 'a')).toBe(fileText(header('a'), [0, 1, 2].map((seq) => event(seq))))
    // Not swept: whether its owner is gone cannot be told from here.
    expect(await journalFiles(image)).toEqual([journal])
    await store.close()
  })

  it('a session another process holds keeps the journal; opening the others replays them from it, and read() sees the held one\'s records', async () => {
    const image = await crashImage()
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
    try {
      await writeFile(`${sessionFile(image, 'b')}.lock`, JSON.stringify({ pid: child.pid, host: hostname(), token: 'theirs' }))
      const store = jsonlStore({ dir: image })
      expect((await store.open('a'))!.events).toHaveLength(3)
      expect(await journalFiles(image)).toHaveLength(1)
      expect((await store.read!('b'))!.events).toHaveLength(3)
      expect(await readSession(image, 'b')).not.toBe(fileText(header('b'), [0, 1, 2].map((seq) => event(seq))))
      await store.close()
    } finally {
      child.kill()
    }
  })

  it('records are replayed only into the file they were written for: a session created again under the same id is left alone', async () => {
    const image = await crashImage()
    await cutFile(sessionFile(image, 'a'), 0)
    await writeFile(sessionFile(image, 'a'), fileText(header('a', { createdAt: 1 }), []))
    const store = jsonlStore({ dir: image })
    expect((await store.open('a'))!.events).toEqual([])
    expect((await store.open('b'))!.events).toHaveLength(3)
    await store.close()
  })
})
