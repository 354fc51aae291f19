// A failed batch whose rollback fails completely — the cut and the zeros written instead — must
// not come back: not after a crash, not at the next open(). With the store journal the journal is
// retired (the members' files fdatasynced, the journal deleted, a new one created by the next
// flush); a session file records its valid length beside it (valid-length.ts), which open() and
// read() obey. A crash here is a copy of the folder as it is (every written byte on the disk).
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { jsonlStore } from './store.js'
import { copyStoreFiles, journalFiles } from './testing/crash-image.js'
import { event, fileText, header, readSession, rejection } from './testing/fixtures.js'
import { syncThenCutAndZerosFail, tempDir, type FsCall } from './testing/recording-fs.js'
import { oneSession } from './testing/one-session.js'
import { twoJournaledSessions } from './testing/two-sessions.js'

let dir: string
let cleanup: () => Promise<void>
beforeEach(async () => ({ dir, cleanup } = await tempDir()))
afterEach(() => cleanup())

const isJournal = (call: FsCall) => call.path.includes('.bosun-journal-')
const isSessionFile = (call: FsCall) => call.path.endsWith('.jsonl')
const isValidLength = (call: FsCall) => call.path.includes('.bosun-valid-')

async function crashImage(live: string): Promise<string> {
  const image = join(dir, 'image')
  await mkdir(image)
  await copyStoreFiles(live, image)
  return image
}

async function openedEvents(image: string, ids: string[]) {
  const store = jsonlStore({ dir: image })
  const result: Record<string, readonly unknown[]> = {}
  for (const id of ids) {
    const { events, writer } = (await store.open(id))!
    result[id] = events
    await writer.close()
  }
  await store.close()
  return result
}

describe('the store journal: its fdatasync, then its ftruncate and the zeros fail', () => {
  it('the journal is retired — every journaled file fdatasynced first, then deleted — the rejection says rolled back, and a crash replays nothing', async () => {
    const live = join(dir, 'live')
    const { fs, store, a, b } = await twoJournaledSessions(live)
    const [old] = await journalFiles(live)

    // a's flush: the journal's fdatasync fails, then the cut and every write to the journal (the zeros).
    fs.fail = syncThenCutAndZerosFail(isJournal)
    a.append(event(1))
    const error = await rejection(a.flush())
    // Before: rolledBack false, and the image below replayed event 1 from the journal.
    expect(error.details).toMatchObject({ step: 'fdatasync of the store journal', rolledBack: true })
    expect(error.message).not.toContain('may come back')
    // b's event 0 was acknowledged through the journal only: b's file is fdatasynced before the journal goes.
    const unlinked = fs.calls.findIndex((call) => call.op === 'unlink' && call.path === old)
    expect(unlinked).toBeGreaterThan(0)
    for (const id of ['a', 'b']) {
      const synced = fs.calls.findIndex((call) => call.op === 'datasync' && call.path.endsWith(`/${id}.jsonl`))
      expect(synced).toBeGreaterThan(-1)
      expect(synced).toBeLessThan(unlinked)
    }
    expect(await journalFiles(live)).toEqual([])

    expect(await openedEvents(await crashImage(live), ['a', 'b'])).toEqual({ a: [event(0)], b: [event(0)] })

    // The retry goes through a new journal.
    fs.fail = () => undefined
    b.append(event(1))
    await Promise.all([a.flush(), b.flush()])
    const [renewed] = await journalFiles(live)
    expect(renewed).toBeDefined()
    expect(renewed).not.toBe(old)
    await store.close()
    const reopened = jsonlStore({ dir: live })
    for (const id of ['a', 'b']) expect((await reopened.open(id))!.events).toEqual([event(0), event(1)])
    await reopened.close()
  })

  it('the folder\'s fsync after the journal\'s unlink fails: a crash could bring the journal back, so the rejection says the batch may come back — until the next journal\'s creation fsyncs the folder', async () => {
    const live = join(dir, 'live')
    const { fs, store, a, b } = await twoJournaledSessions(live)
    const journalFaults = syncThenCutAndZerosFail(isJournal)
    let unlinked = false
    fs.fail = (call) => {
      if (call.op === 'unlink' && isJournal(call)) unlinked = true
      return unlinked && call.op === 'sync' && call.path === live ? 'EIO' : journalFaults(call)
    }
    a.append(event(1))
    const error = await rejection(a.flush())
    expect(unlinked).toBe(true)
    expect(error.details).toMatchObject({ rolledBack: false })
    expect(await journalFiles(live)).toEqual([])

    // b's flush creates the next journal (its folder fsync works): nothing of a's can come back after it.
    fs.fail = () => undefined
    b.append(event(1))
    await b.flush()
    expect(await journalFiles(live)).toHaveLength(1)
    // a's events, still queued, can no longer come back: closed unwritten (its file's writes fail), it says so.
    fs.fail = (call) => (call.op === 'write' && call.path.endsWith('/a.jsonl') ? 'EIO' : undefined)
    expect((await rejection(a.close())).details).toMatchObject({ lost: 1, rolledBack: true })
    await store.close()
  })

  it('a journaled file that cannot be fdatasynced: the journal is kept (its records are needed), and the rejection says the batch may come back', async () => {
    const live = join(dir, 'live')
    const { fs, store, a } = await twoJournaledSessions(live)
    const journalFaults = syncThenCutAndZerosFail(isJournal)
    fs.fail = (call) => (call.op === 'datasync' && call.path.endsWith('/b.jsonl') ? 'EIO' : journalFaults(call))
    a.append(event(1))
    expect((await rejection(a.flush())).details).toMatchObject({ rolledBack: false })
    expect(fs.calls.some((call) => call.op === 'unlink' && isJournal(call))).toBe(false)
    expect(await journalFiles(live)).toHaveLength(1)
    fs.fail = () => undefined
    await a.flush()
    await store.close()
  })
})

/** Session `s`, event 0 acknowledged; then its batch's sync fails, and every cut and write of the file until `repaired()`. */
async function brokenSession(journal: boolean) {
  const { live, fs, store, writer } = await oneSession(dir, journal)
  let failed = false
  fs.fail = (call) => {
    if (call.op === 'datasync' && !failed && (journal ? isJournal(call) : isSessionFile(call))) return (failed = true), 'EIO'
    return failed && isSessionFile(call) && (call.op === 'truncate' || call.op === 'write') ? 'EIO' : undefined
  }
  return { live, fs, store, writer }
}

describe('a session file that can be neither cut nor zeroed', () => {
  it.each([false, true])('(journal: %s) its valid length is recorded beside it: neither a crash nor open() nor read() brings the rejected events back', async (journal) => {
    const { live, fs, store, writer } = await brokenSession(journal)
    writer.append(event(1))
    writer.append(event(2))
    const error = await rejection(writer.flush())
    // Before: rolledBack false, and every read below gave events 1 (and 2) back.
    expect(error.details).toMatchObject({ rolledBack: true })
    expect(await readSession(live, 's')).toContain(JSON.stringify(event(1)))
    expect(await readdir(live)).toContain('.bosun-valid-s')

    const image = await crashImage(live)
    expect((await jsonlStore({ dir: image }).read!('s'))!.events).toEqual([event(0)])
    expect(await openedEvents(image, ['s'])).toEqual({ s: [event(0)] })
    expect(await readSession(image, 's')).toBe(fileText(header('s'), [event(0)]))
    expect(await readdir(image)).not.toContain('.bosun-valid-s')

    // The live writer: the next batch cuts the file, then deletes the record — refused, nothing
    // written, while the record cannot be deleted (it would cut acknowledged events off later).
    fs.fail = (call) => (isValidLength(call) && call.op === 'unlink' ? 'EIO' : undefined)
    writer.append(event(3))
    const refused = await rejection(writer.flush())
    expect(refused.details).toMatchObject({ step: 'unlink of .bosun-valid-s', rolledBack: true })
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [event(0)]))

    fs.fail = () => undefined
    const from = fs.calls.length
    await writer.flush()
    const after = fs.calls.slice(from)
    const removed = after.findIndex((call) => call.op === 'unlink' && isValidLength(call))
    const written = after.findIndex((call) => call.op === 'write' && isSessionFile(call))
    expect(removed).toBeGreaterThan(-1)
    expect(removed).toBeLessThan(written)
    expect(await readdir(live)).not.toContain('.bosun-valid-s')
    await store.close()
    expect(await openedEvents(live, ['s'])).toEqual({ s: [0, 1, 2, 3].map((seq) => event(seq)) })
  })

  it('closed before a flush could cut it: the same store\'s next open() cuts the file to its recorded length and deletes the record', async () => {
    const { live, fs, store, writer } = await brokenSession(false)
    writer.append(event(1))
    expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: true })
    expect((await rejection(writer.close())).details).toMatchObject({ lost: 1, rolledBack: true })
    fs.fail = () => undefined
    const reopened = (await store.open('s'))!
    expect(reopened.events).toEqual([event(0)])
    expect(await readSession(live, 's')).toBe(fileText(header('s'), [event(0)]))
    expect(await readdir(live)).not.toContain('.bosun-valid-s')
    reopened.writer.append(event(1, 'again'))
    await reopened.writer.flush()
    await store.close()
    expect(await openedEvents(live, ['s'])).toEqual({ s: [event(0), event(1, 'again')] })
  })

  it('the record cannot be written either: the rejection says the events may come back (the residual case)', async () => {
    const { fs, store, writer } = await brokenSession(false)
    const faults = fs.fail
    fs.fail = (call) => (isValidLength(call) && call.op === 'open' ? 'EIO' : faults(call))
    writer.append(event(1))
    expect((await rejection(writer.flush())).details).toMatchObject({ rolledBack: false })
    fs.fail = () => undefined
    await writer.flush()
    await store.close()
  })
})
